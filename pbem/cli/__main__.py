"""`python -m pbem.cli` runs the `pbem` command."""

from pbem.cli import main

main()
