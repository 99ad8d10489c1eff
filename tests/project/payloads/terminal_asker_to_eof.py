"""Asks twice on a TerminalAsker fed by a pipe, then once more past the pipe's end, printing each
answer and EOF (test_given.py runs it with the repository on PYTHONPATH)."""

import asyncio

from nano.gate import TerminalAsker


async def go():
    ask = TerminalAsker()
    print(repr(await ask.question('> ')))
    print(repr(await ask.question('> ')))
    try:
        await ask.question('> ')
    except EOFError:
        print('EOF')


asyncio.run(go())
