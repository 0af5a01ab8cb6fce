"""``python -m llgen.cli``: the ``llgen`` command line."""

import os
import sys

from llgen.cli.main import main

if __name__ == "__main__":
    main(prog_name=os.path.basename(sys.argv[0]) or "llgen")
