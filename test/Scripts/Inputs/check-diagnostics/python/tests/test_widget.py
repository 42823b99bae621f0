import pytest


def test_widget(widget):
    with pytest.raises(ValueError, match=r"spindle speed is out of range \(1, 10\)"):
        widget.spin(11)
    out = widget.pull()
    assert "lever arm was extended by one" in out
    print("ratchet slipped a tooth again")
