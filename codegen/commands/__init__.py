"""The work behind the larger ``llgen`` commands, one module each, imported only when the command runs
(llgen.cli holds the click definitions and stays light): writing emitted sources (emit), every
conversion of a TTGIR dump (ttgir), and pictures (show)."""
