"""What a sandboxed process can reach: it tries to read and write the paths in its argument,
to connect to a local port and resolve a name, and prints what happened as JSON
(test_sandbox.py runs its text with `python -c`, the argument written in)."""

import json, os, socket, sys
paths = json.loads(sys.argv[1])
found = {}
for path in paths["read"]:
    try:
        found[path] = open(path).read()[:40]
    except OSError as exc:
        found[path] = type(exc).__name__
for path in paths["write"]:
    try:
        with open(path, "w") as out:
            out.write("PWNED")
        found[path] = "written"
    except OSError as exc:
        found[path] = type(exc).__name__
try:
    socket.create_connection(("127.0.0.1", paths["port"]), timeout=3).close()
    found["connect"] = "connected"
except OSError as exc:
    found["connect"] = type(exc).__name__
try:
    socket.getaddrinfo("example.com", 80)
    found["dns"] = "resolved"
except OSError as exc:
    found["dns"] = type(exc).__name__
found["uid"] = os.getuid()
found["home"] = os.environ.get("HOME")
found["keys"] = sorted(k for k in os.environ if "ANTHROPIC" in k)
print(json.dumps(found))
