"""The command line's parser of build_tables.py and trace-doctor: a bad argument is one line,
`PROG: error: WHY (see --help)`, and exit status 2, instead of argparse's usage block
(standard library only: the installed reader uses it too)."""
from __future__ import annotations

import argparse


class Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line and exit 2, instead of argparse's usage block."""
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")
