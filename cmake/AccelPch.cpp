// The translation unit that builds the precompiled header (AccelPch.h).
