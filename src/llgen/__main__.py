"""``python -m llgen``: the ``llgen`` command line."""

from llgen.cli import main

if __name__ == "__main__":
    main(prog_name="llgen")
