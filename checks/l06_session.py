"""A session of lecture 06's `main`, driven: what checks/l06.py's rules run.

For the length of each session agent_loop stands in as a handler on the driver's side: the
subject swaps nano.loop.agent_loop's code (or, if it cannot, replaces the name in nano.loop and
nano.repl), so main reaches it however it imports agent_loop. Each call of it arrives with what
main passed: the list (the subject's name for it, and what it held), the asker and the model
(main's own proxies, or something else). The stand-in plays one kind of turn (a canned answer, a
failure after a dangling tool_use, Ctrl-C in the middle, the turn limit, one call of main's
model) by appending entries to that very list and returning or raising; a turn that asks the
gate or calls main's model is answered by the scripted human's or the model's recorder. The human
is a scripted asker (EOFError when out of lines). So only `main` runs in the subject, and what it
did is what comes back: the calls of agent_loop, the questions, the list it returned (and
whether it is the caller's own), what it printed.

check_messages and explain are the course's given code (nano/protocol.py, nano/failures.py),
run on the driver's side on what was seen.
"""

from checks import doubles
from checks.doubles import Raise, Reply


class Escaped(Exception):
    """Driving itself broke: agent_loop could not be stood in (nano.loop could not be imported...)."""

    def __init__(self, outcome):
        super().__init__()
        self.outcome = outcome if isinstance(outcome, dict) else {}


# --- the entries a turn pushes ------------------------------------------------------------------

def said(message):
    """What a user or assistant entry says: its string content, or its text blocks joined."""
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")


def answer(words):
    return {"role": "assistant", "content": [{"type": "text", "text": words}]}


def use(tool_id, name, tool_input, words=None):
    return {"role": "assistant", "content": ([{"type": "text", "text": words}] if words else [])
            + [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}


def result(tool_id, output):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output,
                                         "is_error": False}]}


def pushed(*entries, value="done", throw=None):
    """The turn's effect: `entries` appended to the list agent_loop got, then `value` or `throw`."""
    return Reply(value=value, append=tuple((0, entry) for entry in entries), throw=throw)


# --- agent_loop, standing in ----------------------------------------------------------------------

class Loop:
    """agent_loop standing in: `play(loop, line, call)` gives each call's turn (a Reply). Each call
    is recorded in `calls`: the subject's name for the list it got (None unless it came as a
    list, first), its length and what its last entry said, and whether the asker and the model
    were main's own (`human` and `model`, the recorders behind `ask_ref` and `model_ref`)."""

    def __init__(self, subject, play, human, ask_ref, model=None, model_ref=None):
        self.subject, self.play = subject, play
        self.human, self.ask_ref, self.model, self.model_ref = human, ask_ref, model, model_ref
        self.calls, self.messages = [], None

    def ours(self, index, value, ref):
        """Whether argument `index` (`value` as it arrived) was the subject's object `ref`."""
        if ref is None:
            return False
        refs = self.subject.refs if isinstance(self.subject.refs, list) else []
        if index < len(refs):
            return refs[index] == ref.number
        return value == ref.wire()

    def __call__(self, messages=None, ask=None, model=None, *args, **kwargs):
        refs = self.subject.refs if isinstance(self.subject.refs, list) else []
        listed = isinstance(messages, list)
        call = {"list": refs[0] if refs and type(refs[0]) is int else None,
                "length": len(messages) if listed else None,
                "last": said(messages[-1]) if listed and messages else None,
                "ask": self.ours(1, ask, self.ask_ref), "model": self.ours(2, model, self.model_ref)}
        self.calls.append(call)
        self.messages = messages
        line = call["last"] if isinstance(call["last"], str) else ""
        return self.play(self, line, call)

    def asks(self, call, prompt):
        """The gate asks main's human `prompt`: (True, the answer) or (False, a throw)."""
        if not call["ask"]:
            return False, ("EOFError", "agent_loop was not handed main's asker")
        try:
            return True, self.human(prompt)
        except Raise as exc:
            return False, (exc.kind, exc.message)

    def calls_model(self, call):
        """Main's model is called once: (True, the reply's content) or (False, a throw)."""
        if not call["model"] or self.model is None:
            return False, ("RuntimeError", "agent_loop was not handed main's model")
        try:
            got = self.model(self.messages)
        except Raise as exc:
            return False, (exc.kind, exc.message)
        message = got.get("$message") if isinstance(got, dict) else None
        return True, message.get("content") if isinstance(message, dict) else None


def canned_turns(loop, line, call):
    """One text-only answer, "answer n" for the n-th call."""
    return pushed(answer(f"answer {len(loop.calls)}"))


def model_turns(loop, line, call):
    """Asks main's model once and pushes its reply."""
    ok, got = loop.calls_model(call)
    return pushed({"role": "assistant", "content": got}) if ok else Reply(throw=got)


FAILING = ("crash", "deep", "results", "gate")  # the first words of the lines whose turn fails


def failing_turns(loop, line, call):
    """A turn chosen by the line's first word: crash, deep, results and gate fail part-way; others answer."""
    word = (line.split() or [""])[0]
    if word == "crash":     # a dangling tool_use, then the turn fails
        return pushed(use("toolu_c" + str(call["length"]), "read_file", {"path": "setup.cfg"}, "On it."),
                      throw=("RuntimeError", f"lost the connection during: {line}"))
    if word == "deep":      # a tool answered, a second one dangling, then the turn fails
        return pushed(use("toolu_d1", "list_files", {"path": "src"}, "On it."),
                      result("toolu_d1", "app.py\nutil.py"),
                      use("toolu_d2", "edit_file", {"path": "src/app.py", "old_string": "a", "new_string": "b"},
                          "On it."),
                      throw=("ConnectionResetError", "the peer reset the connection"))
    if word == "results":   # the turn fails right after its tool results were pushed
        return pushed(use("toolu_r1", "bash", {"command": "pytest -q"}, "On it."), result("toolu_r1", "exit code: 1"),
                      throw=("ValueError", "the model's reply could not be read"))
    if word == "gate":      # the gate asks, and input has ended
        answered, got = loop.asks(call, "$ rm -rf build/\nAllow bash? [y/n] ")
        return pushed(use("toolu_g1", "bash", {"command": "rm -rf build/"}, "On it."),
                      throw=("AssertionError", "this scripted session has no answer for the gate")
                      if answered else got)
    return pushed(answer(f"done: {line}"))


def interrupted_turns(loop, line, call):
    """A line starting with "stop" is interrupted by Ctrl-C mid-turn, after a tool_use was pushed."""
    if line.startswith("stop"):
        return pushed(use("toolu_k1", "bash", {"command": "sleep 600"}), throw=("KeyboardInterrupt", ""))
    return pushed(answer(f"done: {line}"))


def limited_turns(rounds):
    """A line starting with "loop" runs `rounds` tool rounds, then returns "max_turns"; others answer."""
    def play(loop, line, call):
        if line.startswith("loop"):
            entries = []
            for i in range(rounds):
                entries += [use(f"toolu_m{i}", "bash", {"command": "pytest -x"}), result(f"toolu_m{i}", "exit code: 1")]
            return pushed(*entries, value="max_turns")
        return pushed(answer(f"done: {line}"))
    return play


# --- the models -----------------------------------------------------------------------------------

def message(words):
    """A reply holding one text block, as the API's JSON."""
    testing = doubles.given("testing")
    return testing.reply(testing.text(words)).model_dump(mode="json", exclude_none=True)


KINDS = {"rate_limit": "anthropic.RateLimitError", "not_found": "anthropic.NotFoundError",
         "connection": "anthropic.APIConnectionError"}


class FailingModel:
    """A model that fails on the calls `failures` names ({n: (kind, detail)}, counting from 1) and
    answers "answer n" otherwise."""

    def __init__(self, failures):
        self.failures, self.calls = failures, 0

    def __call__(self, messages=None, *args, **kwargs):
        self.calls += 1
        if self.calls in self.failures:
            kind, detail = self.failures[self.calls]
            raise Raise(KINDS.get(kind, "RuntimeError"), detail)
        return {"$message": message(f"answer {self.calls}")}


def failure(kind, detail):
    """The exception the subject raises for a failed model call, built here the same way
    (subject/harness.py, `exception`)."""
    import anthropic
    import httpx

    request = httpx.Request("POST", "https://api.anthropic.com/v1/messages")
    if kind == "rate_limit":
        return anthropic.RateLimitError(detail, response=httpx.Response(429, request=request), body=None)
    if kind == "not_found":
        return anthropic.NotFoundError(detail, response=httpx.Response(404, request=request), body=None)
    if kind == "connection":
        return anthropic.APIConnectionError(request=request)
    return RuntimeError(detail)


def explained(exc):
    """"error: " + explain(exc), as main must print it (explain is given: nano/failures.py)."""
    try:
        return f"error: {doubles.given('failures').explain(exc)}"
    except Exception:
        return None


def at_rest(log):
    """check_messages(log, at_rest=True)'s complaint, or None (the course's own check_messages)."""
    try:
        doubles.given("protocol").check_messages(log, at_rest=True)
    except Exception as exc:
        return str(exc)[:500] or type(exc).__name__
    return None


# --- running main -------------------------------------------------------------------------------

def run_main(subject, play, lines, messages=None, model=None):
    """main(the human, [messages=the list `messages`], [model=`model`'s proxy]) with agent_loop
    standing in as `play`, its output captured. `model`: (its recorder, its Ref) or None.

    Returns what was seen, plain data: what main returned ("log"; "ref", the subject's name for it
    if it has one), what it printed, how many questions it asked, the calls of agent_loop, and,
    when a list was passed, what it holds afterwards ("mine") and whether main returned it."""
    human, ask_ref = doubles.asker(subject, lines)
    recorder, model_ref = model if model is not None else (None, None)
    loop = Loop(subject, play, human, ask_ref, recorder, model_ref)
    stood = subject.stand("nano.loop.agent_loop", loop, also=["nano.repl"])
    if not isinstance(stood, dict) or "raised" in stood:
        raise Escaped(stood)
    kwargs = {}
    mine = None if messages is None else subject.make(list(messages))
    if mine is not None:
        kwargs["messages"] = mine
    if model_ref is not None:
        kwargs["model"] = model_ref
    outcome = subject.call("nano.repl.main", ask_ref, capture=True, **kwargs)
    log = outcome.get("value")
    is_list = outcome.get("type") == "list" and isinstance(log, list)
    ref = outcome.get("ref")
    seen = {"prompts": len(human.prompts), "out": text(outcome.get("stdout")), "err": text(outcome.get("stderr")),
            "is_list": is_list, "log": log if is_list else repr(log)[:300],
            "ref": ref if type(ref) is int else None, "calls": len(loop.calls), "turns": loop.calls}
    if "raised" in outcome:
        names = outcome.get("raised")
        seen["raised"] = [str(name) for name in names] if isinstance(names, list) else [str(names)]
        seen["message"] = text(outcome.get("message"))[:500]
    elif is_list:
        seen["rest"] = at_rest(log)
    # Which calls of agent_loop got the one list: the caller's, or else the one main returned.
    same = mine.number if mine is not None else seen["ref"]
    seen["same"] = [same is not None and call["list"] == same for call in loop.calls]
    if mine is not None:
        after = subject.read(mine)
        seen["mine"] = after.get("value") if isinstance(after, dict) else None
        seen["is_mine"] = seen["ref"] == mine.number
    return seen


def session(subject, case):
    """One session of main, as `case` says: its "lines", the caller's list ("earlier", if any),
    and how agent_loop plays each turn ("play": canned, model, failing, interrupted, limited with
    "rounds", failing_model with "failures"). With "expected", the lines 'error: ' + explain(exc)
    main must print, from the given explain."""
    play, model, expected = canned_turns, None, None
    kind = case.get("play", "canned")
    if kind == "model":
        model = doubles.model(subject, [message(case["words"])] * len(case["lines"]))
        play = model_turns
    elif kind == "failing_model":
        recorder = FailingModel({n: (failure_kind, detail) for n, failure_kind, detail in case["failures"]})
        model = (recorder, subject.proxy("model", recorder))
        play = model_turns
        expected = [explained(failure(failure_kind, detail)) for _, failure_kind, detail in case["failures"]]
    elif kind == "failing":
        play = failing_turns
    elif kind == "interrupted":
        play = interrupted_turns
        expected = [explained(KeyboardInterrupt())] * sum(line.startswith("stop") for line in case["lines"])
    elif kind == "limited":
        play = limited_turns(case["rounds"])
    run = run_main(subject, play, case["lines"], messages=case.get("earlier"), model=model)
    if model is not None:
        run["model_calls"] = model[0].calls
    if expected is not None:
        run["expected"] = expected
    return run


def drive_sessions(subject, inputs):
    """Each case of inputs["cases"] as one session of main (`session`); what broke driving itself
    as {"escaped", "message"}."""
    try:
        return {"runs": [session(subject, case) for case in inputs["cases"]]}
    except Escaped as exc:
        names = exc.outcome.get("raised")
        return {"escaped": str(names[0]) if isinstance(names, list) and names else "an error",
                "message": text(exc.outcome.get("message"))[:500]}


def text(value):
    return value if isinstance(value, str) else ""
