#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The server guest's half of the two-VM test: runs twovm_lib.sh functions
(through side.sh) when the client guest asks, over TCP on the test link.

One request a connection, one line of words:
  run SECS FUNC ARGS...   run it, reply "rc N" and its output
  start ID FUNC ARGS...   start it in the background, reply "ok"
  wait ID SECS            wait for ID (killed after SECS: rc 124), reply
                          "rc N" and its output
  quit RC                 reply "bye", exit with RC
Ends with status 1 if no request comes for --idle seconds (the client
died). Only the closed link between the two test guests reaches it.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SIDE = os.path.join(HERE, "side.sh")


def say(msg):
    print("[agent] " + msg, flush=True)


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def reply_rc(conn, rc, out):
    conn.sendall(("rc %d\n" % rc).encode() + out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--addr", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--idle", type=int, default=900)
    a = ap.parse_args()
    jobs = {}  # id -> (Popen, log file)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((a.addr, a.port))
    srv.listen(4)
    srv.settimeout(a.idle)
    say("listening on %s:%d" % (a.addr, a.port))
    while True:
        try:
            conn, peer = srv.accept()
        except socket.timeout:
            say("no request for %d s: the client is gone" % a.idle)
            for p, _ in jobs.values():
                kill_group(p)
            return 1
        # The file must be closed too for the client to see the end.
        with conn, conn.makefile("rb") as f:
            words = f.readline().decode(errors="replace").split()
            if not words:
                continue
            say(" ".join(words))
            op, args = words[0], words[1:]
            try:
                if op == "run":
                    secs, cmd = int(args[0]), args[1:]
                    p = subprocess.Popen(["bash", SIDE] + cmd, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         start_new_session=True)
                    try:
                        out = p.communicate(timeout=secs)[0]
                        reply_rc(conn, p.returncode, out)
                    except subprocess.TimeoutExpired:
                        kill_group(p)
                        reply_rc(conn, 124, p.stdout.read())
                elif op == "start":
                    jid, cmd = args[0], args[1:]
                    log = tempfile.TemporaryFile()
                    p = subprocess.Popen(["bash", SIDE] + cmd, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
                    jobs[jid] = (p, log)
                    conn.sendall(b"ok\n")
                elif op == "wait":
                    jid, secs = args[0], int(args[1])
                    p, log = jobs.pop(jid)
                    try:
                        rc = p.wait(timeout=secs)
                    except subprocess.TimeoutExpired:
                        kill_group(p)
                        rc = 124
                    log.seek(0)
                    reply_rc(conn, rc, log.read())
                    log.close()
                elif op == "quit":
                    conn.sendall(b"bye\n")
                    return int(args[0]) if args else 0
                else:
                    conn.sendall(b"rc 2\nunknown request\n")
            except (IndexError, KeyError, ValueError) as e:
                conn.sendall(("rc 2\nbad request: %s\n" % e).encode())
            except OSError as e:
                say("request failed: %s" % e)


if __name__ == "__main__":
    sys.exit(main())
