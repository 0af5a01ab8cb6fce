"""The work behind the ``llgen`` commands, one module each, imported only when the command runs (llgen.cli holds
the click definitions and stays light): layout, emit, plan, swizzle (and swizzle_family), show, bench, check and
gpu_check, every conversion of a TTGIR dump (ttgir), and the options several commands share (options, the one
module llgen.cli imports at start-up)."""
