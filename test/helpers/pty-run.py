# Runs a command in a new pseudo-terminal of a given size, for tests of what a
# person at a terminal sees (test/helpers/pty.ts drives it). Python's pty
# module is on every CI machine; nothing needs compiling or installing.
#
#   python3 pty-run.py COLUMNS ROWS COMMAND [ARG...]
#
# What this process reads on stdin is typed into the terminal; what the
# terminal shows is written to stdout, byte for byte. Exits with the
# command's exit code (128 + N when signal N ended it).
import fcntl
import os
import pty
import select
import struct
import sys
import termios

columns, rows, command = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]

pid, master = pty.fork()
if pid == 0:
    # The child's stdin is the terminal: size it before the command starts.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    os.execvp(command[0], command)

inputs = [master, sys.stdin.fileno()]
while True:
    ready, _, _ = select.select(inputs, [], [])
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the command and everything it started closed the terminal
            data = b""
        if not data:
            break
        os.write(sys.stdout.fileno(), data)
    if sys.stdin.fileno() in ready:
        data = os.read(sys.stdin.fileno(), 65536)
        if data:
            os.write(master, data)
        else:
            inputs.remove(sys.stdin.fileno())

_, status = os.waitpid(pid, 0)
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
