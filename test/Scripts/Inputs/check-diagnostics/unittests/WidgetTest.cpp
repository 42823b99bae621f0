// The simulator says "pulley ratio cannot be zero here" in a comment only.
static const char *kAxle = "axle length is not a multiple of 4";

TEST(Widget, Messages) {
  EXPECT_EQ(errorOf(teeth()), "cog teeth do not mesh at all");
  EXPECT_NE(errorOf(axle()).find(kAxle), std::string::npos);
}

struct Case {
  const char *what;
  const char *message;
};

TEST(Widget, Table) {
  const Case cases[] = {
      {"pulley ratio cannot be zero here", "bearing wear is past its limit: 3"},
      {"worn bearing", "bearing wear is past its limit: 4"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(errorOf(bearing(c)), c.message);
  }
}
