"""``platformfake`` (the console script) and ``python -m platformkit_fake``: run the binary."""

import subprocess
import sys

from platformkit_fake import binary_path


def main():
    # A child process rather than exec, so that Windows, which has no exec, behaves the same.
    try:
        return subprocess.call([binary_path(), *sys.argv[1:]])
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
