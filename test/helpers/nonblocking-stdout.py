# Runs a command whose standard output is a pipe set non-blocking (O_NONBLOCK),
# as a process that shares a pipe or terminal may leave it, and reads nothing
# for the first `wait` seconds: the command's writes fill the pipe and then
# fail with EAGAIN. What it wrote is copied to this script's stdout; the exit
# code is the command's. Usage: python3 nonblocking-stdout.py <wait> <command...>
import os, subprocess, sys, time

wait, command = float(sys.argv[1]), sys.argv[2:]
r, w = os.pipe()
os.set_blocking(w, False)
child = subprocess.Popen(command, stdout=w)
os.close(w)
time.sleep(wait)
with os.fdopen(r, 'rb') as reader:
    while chunk := reader.read(65536):
        sys.stdout.buffer.write(chunk)
sys.exit(child.wait())
