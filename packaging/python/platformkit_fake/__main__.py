"""``platformfake`` (the console script) and ``python -m platformkit_fake``: run the binary."""

import subprocess
import sys

from platformkit_fake import binary_path


def main():
    # A child process rather than exec, so that Windows, which has no exec, behaves the same. Its
    # stdin is a pipe this process holds: however this process ends, kill -9 included, the pipe
    # closes and the binary stops (-exit-on-stdin-eof), so it never outlives its command.
    proc = subprocess.Popen([binary_path(), "-exit-on-stdin-eof", *sys.argv[1:]], stdin=subprocess.PIPE)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        # The terminal sent SIGINT to the binary too; let it finish its graceful stop.
        proc.stdin.close()
        proc.wait()
        return 130


if __name__ == "__main__":
    sys.exit(main())
