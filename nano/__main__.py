"""`python -m nano`: the REPL in a terminal, against the real model."""

import asyncio
import os
import sys


def run() -> int:
    if not os.environ.get("ANTHROPIC_API_KEY") and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        print("nano needs an Anthropic API key: set ANTHROPIC_API_KEY "
              "(export ANTHROPIC_API_KEY=sk-ant-...) and run python -m nano again.",
              file=sys.stderr)
        return 2
    from nano.model import MODEL
    from nano.repl import main

    print(f"nano, using {MODEL} in {os.getcwd()}. Type a request; 'exit' or Ctrl-D ends.")
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        print()
    return 0


if __name__ == "__main__":
    sys.exit(run())
