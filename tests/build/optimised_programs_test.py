#!/usr/bin/env python3
"""Every program that ships or measures runs optimised code only.

    optimised_programs_test.py PROGRAM...

A program whose own files are compiled -O0 (cmake/MeleeHelpers.cmake, melee_unoptimised) can run
unoptimised copies of the inline functions it shares with the -O2 libraries: the linker keeps one
copy of each, and it may keep the -O0 file's. melee-server ran 25% more instructions a command
that way (docs/architecture.md, "Build time"). Trivial inline functions that -O2 always inlines
are defined out of line only by -O0 code, so their presence in a program's symbol table says it
holds some: this test fails naming them.
"""

import subprocess
import sys

# Inlined everywhere at -O2; defined (as weak symbols) only by code compiled -O0.
UNOPTIMISED_ONLY = [
    "std::__is_constant_evaluated()",
    "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
    "::_M_is_local() const",
]


def defined_symbols(path):
    listing = subprocess.run(["nm", "-C", "--defined-only", path], capture_output=True,
                             text=True, check=True).stdout
    return {line.split(" ", 2)[2] for line in listing.splitlines() if line.count(" ") >= 2}


def main():
    programs = sys.argv[1:]
    if not programs:
        sys.exit("usage: optimised_programs_test.py PROGRAM...")
    failed = False
    for path in programs:
        found = [name for name in UNOPTIMISED_ONLY if name in defined_symbols(path)]
        if found:
            failed = True
            print("%s holds code compiled -O0 (it defines %s): a file of it or of a library it "
                  "links is compiled by melee_unoptimised" % (path, "; ".join(found)))
        else:
            print("%s: optimised" % path)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
