"""Lecture 06's graded behaviours: main, the REPL around agent_loop.

For the length of each session agent_loop stands in as a handler here, in the driver: the
subject swaps nano.loop.agent_loop's code (or, if it cannot, replaces the name in nano.loop and
nano.repl), so main reaches it however it imports agent_loop. Each call of it arrives here with
what main passed: the list (the subject's name for it, and what it held), the asker and the
model (main's own proxies, or something else). The handler plays one kind of turn (a canned
answer, a failure after a dangling tool_use, Ctrl-C in the middle, the turn limit, one call of
main's model) by appending entries to that very list and returning or raising; a turn that
asks the gate or calls main's model is answered here, by the scripted human's or the model's
recorder. The human is a scripted asker of the driver's (EOFError when out of lines). So only
`main` runs in the subject, and what it did is what reached the driver: the calls of agent_loop,
the questions, the list it returned (and whether it is the caller's own), what it printed.

A repaired history is judged by what it holds: exactly the finished turns, in order, whichever
correct way main repaired it (popping until check_messages(at_rest=True) holds, or cutting back
to where the failed line began). check_messages and explain are the course's given code, run
here on what was seen (the repository's copy, never the hand-in's).
"""

from checks import doubles
from autograder.check.behaviour import Behaviour
from checks.doubles import Raise, Reply

# Requests a session may type: none is blank, none is "exit", none starts a stand-in's keyword.
REQUESTS = ["what does convert.py do?", "now add a docstring", "rename tally() to count_votes()",
            "run the tests once", "show me the diff of ballot.py", "fix the off-by-one in pager.py",
            "list the files in src/", "read notes.md", "count the TODOs in src/", "summarise utils.py",
            "add a changelog entry", "which files changed?", "bump the version", "explain pager.py"]
WORDS = ["It converts temperatures.", "Renamed, and the three call sites updated.", "Two tests fail.",
         "The diff is one line.", "Done: the docstring says what it returns."]
RUNAWAY = "main kept asking after the input had ended (section 2)"


class Escaped(Exception):
    """Driving itself broke: agent_loop could not be stood in (nano.loop could not be imported...)."""

    def __init__(self, outcome):
        super().__init__()
        self.outcome = outcome if isinstance(outcome, dict) else {}


# --- agent_loop, standing in here -----------------------------------------------------------------

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
    """"error: " + explain(exc), as main must print it (explain is given: the course's own)."""
    try:
        return f"error: {doubles.given('repl').explain(exc)}"
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
        seen["raised"] = str(names[0]) if isinstance(names, list) and names else str(names)
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


def text(value):
    return value if isinstance(value, str) else ""


def drive_guarded(drive):
    """`drive`, reporting what broke driving itself as {"escaped", "message"} (judged by `escaped`)."""
    def guarded(subject, inputs):
        try:
            return drive(subject, inputs)
        except Escaped as exc:
            names = exc.outcome.get("raised")
            return {"escaped": str(names[0]) if isinstance(names, list) and names else "an error",
                    "message": text(exc.outcome.get("message"))[:500]}
    guarded.__name__ = drive.__name__
    guarded.__doc__ = drive.__doc__
    return guarded


# --- judging helpers (plain data in, never raising) ----------------------------------------------

def users(log):
    if not isinstance(log, list):
        return None
    return [said(m) for m in log if isinstance(m, dict) and m.get("role") == "user"]


def errors(run):
    out = run.get("out") if isinstance(run, dict) else None
    return [line for line in out.splitlines() if line.startswith("error: ")] if isinstance(out, str) else []


def normal(log):
    """The log with a line pushed as a string or as one text block read the same way."""
    if not isinstance(log, list):
        return None
    return [{**m, "content": [{"type": "text", "text": m["content"]}]}
            if isinstance(m, dict) and isinstance(m.get("content"), str) else m for m in log]


def turns(lines, replies=None):
    """The history of finished turns: each line, then a text-only reply ("done: " + the line by default)."""
    log = []
    for n, line in enumerate(lines):
        reply_text = replies[n] if replies else f"done: {line}"
        log += [{"role": "user", "content": line},
                {"role": "assistant", "content": [{"type": "text", "text": reply_text}]}]
    return log


def part(seen, key):
    """seen[key] if it is a dict, else an empty one."""
    value = seen.get(key) if isinstance(seen, dict) else None
    return value if isinstance(value, dict) else {}


def ran_away(*runs):
    """RUNAWAY if main, in any of `runs`, was stopped for asking again and again after the input ended."""
    return RUNAWAY if any(isinstance(run, dict) and run.get("raised") == "Runaway" for run in runs) else None


def ran(run, section, what="main"):
    """The failure for a session that did not end normally, or None."""
    if not isinstance(run, dict):
        return f"{what} could not be run at all (section {section})"
    if ran_away(run):
        return RUNAWAY
    if "raised" in run:
        return f"{what} raised {run.get('raised')}: {run.get('message')} (section {section})"
    if run.get("is_list") is not True or not isinstance(run.get("log"), list):
        return f"main must return the history, a list; it returned {run.get('log')} (section {section})"
    return None


def escaped(seen):
    """The failure when observing itself broke (nano.loop or nano.repl could not be imported...)."""
    if not isinstance(seen, dict):
        return "main could not be run (sections 1-5)"
    if "escaped" in seen:
        return f"main could not be run: {seen.get('escaped')}: {seen.get('message')} (sections 1-5)"
    return None


def repaired(run, expected, section, hint):
    """The failures for a session whose history must be exactly `expected` after its repairs."""
    if run.get("rest"):
        yield f"after a failed turn main must pop the tail until the log is at rest: {run['rest']} (section {section})"
    elif normal(run.get("log")) != normal(expected):
        yield f"{hint}: the history should hold the finished turns {users(expected)}, not {users(run.get('log'))} (section {section})"


# --- section 1: one history, ask and model --------------------------------------------------------

def draw_history(rng):
    picked = rng.sample(REQUESTS, 7)
    return {"mine": picked[:3], "earlier_line": picked[3], "first": picked[4:6], "second": picked[6:]}


def held(run):
    """The caller's list afterwards (a list, or None)."""
    mine = run.get("mine")
    return mine if isinstance(mine, list) else None


@drive_guarded
def drive_history(subject, inputs):
    seen = {}
    run = run_main(subject, canned_turns, ["what does convert.py do?", "now add a docstring"])
    seen["visible"] = run

    run = run_main(subject, canned_turns, inputs["mine"], messages=[])
    mine = held(run)
    seen["mine"] = {**run, "users": users(mine), "length": len(mine) if mine is not None else None,
                    "lengths": [c["length"] for c in run["turns"]], "last": [c["last"] for c in run["turns"]]}

    earlier = [{"role": "user", "content": "hello nano"},
               {"role": "assistant", "content": [{"type": "text", "text": "Hello! What shall we work on?"}]}]
    run = run_main(subject, canned_turns, [inputs["earlier_line"]], messages=earlier)
    mine = held(run)
    seen["earlier"] = {**run, "kept": mine is not None and mine[:2] == earlier,
                       "length": len(mine) if mine is not None else None,
                       "lengths": [c["length"] for c in run["turns"]]}

    first = run_main(subject, canned_turns, inputs["first"])
    second = run_main(subject, canned_turns, inputs["second"])
    seen["sessions"] = {"first": first, "second": second,
                        "distinct": first["ref"] is None or first["ref"] != second["ref"]}
    return seen


def judge_history(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    visible = part(seen, "visible")
    problem = ran(visible, "sections 1-3")
    if problem:
        yield problem
        return
    log = visible.get("log")
    if len(log) != 4:
        yield f"two lines must leave 4 entries, not {len(log)} (section 1)"
        return
    if [said(log[0]), said(log[2])] != ["what does convert.py do?", "now add a docstring"]:
        yield "each line goes onto the history as a user message, in order (section 1)"
    if visible.get("same") != [True, True]:
        yield "both lines must run on the one list main returns (section 1)"

    mine, lines = part(seen, "mine"), inputs["mine"]
    problem = ran(mine, "sections 1-3")
    if problem:
        yield problem
        return
    if mine.get("is_mine") is not True:
        yield "main must return the caller's own list, not a copy or a new one (section 1)"
    if mine.get("length") != 6:
        yield f"an empty list passed in must be filled in place: it holds {mine.get('length')} entries (section 1)"
    elif mine.get("users") != lines:
        yield "every line, in order, on the caller's list (section 1)"
    if mine.get("lengths") != [1, 3, 5]:
        yield "each turn must see every earlier turn: one list that grows across lines (section 1)"
    if mine.get("same") != [True, True, True]:
        yield "every turn must run on the caller's list itself (section 1)"
    if mine.get("last") != lines:
        yield "push the line before running agent_loop, so the turn answers it (section 1)"
    if "error:" in str(mine.get("out")):
        yield "a good turn must not print an error line (section 3)"

    earlier = part(seen, "earlier")
    problem = ran(earlier, "sections 1-3")
    if problem:
        yield problem
        return
    if earlier.get("is_mine") is not True or earlier.get("kept") is not True:
        yield "main must keep the earlier entries of the caller's list (section 1)"
    if earlier.get("length") != 4 or earlier.get("lengths") != [3]:
        yield "the new line goes after the earlier turns (section 1)"

    sessions = part(seen, "sessions")
    first, second = part(sessions, "first"), part(sessions, "second")
    problem = ran(first, "sections 1-3") or ran(second, "sections 1-3")
    if problem:
        yield problem
        return
    if len(first.get("log")) != 4 or len(second.get("log")) != 2 or sessions.get("distinct") is not True:
        yield "main without a list must start a new, empty history for each session (section 1)"


def draw_passes(rng):
    return {"visible_words": rng.choice(WORDS), "lines": rng.sample(REQUESTS, 2), "words": rng.choice(WORDS)}


@drive_guarded
def drive_passes(subject, inputs):
    seen = {}
    for name, lines, words in [("visible", ["what does convert.py do?"], inputs["visible_words"]),
                               ("hidden", inputs["lines"], inputs["words"])]:
        run = run_main(subject, model_turns, lines, model=doubles.model(subject, [message(words)] * len(lines)))
        seen[name] = {**run, "asks": [c["ask"] for c in run["turns"]], "models": [c["model"] for c in run["turns"]]}
    return seen


def judge_passes(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    if ran_away(visible, hidden):
        yield RUNAWAY
        return
    for run in (visible, hidden):
        if not isinstance(run, dict) or "raised" in run:
            yield f"main raised {run.get('raised') if isinstance(run, dict) else '?'}: " \
                  f"{run.get('message') if isinstance(run, dict) else ''} (section 1)"
            return
    if visible.get("calls") != 1:
        yield f"one line must run agent_loop once, not {visible.get('calls')} times (section 1)"
        return
    if visible.get("asks") != [True]:
        yield "main must hand its own asker to agent_loop, so the gate asks the same human (section 1)"
    if visible.get("models") != [True]:
        yield "main must hand its model to agent_loop (section 1)"
    if hidden.get("calls") != 2:
        yield "two lines, two runs of agent_loop (section 1)"
        return
    if hidden.get("asks") != [True, True]:
        yield "every turn's gate must ask through main's asker, not a TerminalAsker of its own (section 1)"
    if hidden.get("models") != [True, True]:
        yield "every turn must use the model main was given, never the default call_model (section 1)"
    log = hidden.get("log") if isinstance(hidden.get("log"), list) else []
    replies = [block.get("text") if isinstance(block, dict) else None
               for m in log if isinstance(m, dict) and m.get("role") == "assistant"
               for block in (m.get("content") if isinstance(m.get("content"), list) else [None])]
    if replies != [inputs["words"]] * 2:
        yield "the replies of main's model must reach the history (section 1)"


# --- section 2: blank lines, exit, the end of input ------------------------------------------------

def draw_two(rng):
    return {"lines": rng.sample(REQUESTS, 3)}


@drive_guarded
def drive_blank(subject, inputs):
    first, second, visible = inputs["lines"]
    return {"visible": run_main(subject, canned_turns, ["", visible]),
            "hidden": run_main(subject, canned_turns, ["", "   ", first, "\t", "  \t ", second]),
            "blank": run_main(subject, canned_turns, ["    ", "", "\t"], messages=[])}


def judge_blank(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    first, second, line = inputs["lines"]
    visible, hidden, blank = part(seen, "visible"), part(seen, "hidden"), part(seen, "blank")
    problem = ran(visible, 2) or ran(hidden, 2) or ran(blank, 2)
    if problem:
        yield problem
        return
    if visible.get("calls") != 1:
        yield f"a blank line must not run agent_loop: it ran {visible.get('calls')} times (section 2)"
    if len(visible["log"]) != 2 or said(visible["log"][0]) != line:
        yield "a blank line must not be pushed onto the history (section 2)"
    if hidden.get("calls") != 2:
        yield f"lines of spaces or tabs are blank too: strip before testing; agent_loop ran {hidden.get('calls')} times (section 2)"
    if users(hidden["log"]) != [first, second]:
        yield "only the non-blank lines may reach the history (section 2)"
    if hidden.get("prompts") != 7:
        yield f"after a blank line main must ask again and keep going; it asked {hidden.get('prompts')} questions (section 2)"
    if blank.get("calls") != 0 or blank["log"] != []:
        yield "a session of blank lines must never call agent_loop nor push anything (section 2)"


@drive_guarded
def drive_exit(subject, inputs):
    earlier = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}]
    first = run_main(subject, canned_turns, ["exit", "list the files", "read notes.md"], messages=earlier)
    return {"visible": run_main(subject, canned_turns, ["read convert.py", "exit", "this line is never read"]),
            "mentions": run_main(subject, canned_turns, inputs["mentions"] + ["  exit  ", "never read", "nor this"]),
            "first": {**first, "length": len(held(first)) if held(first) is not None else None},
            "blank_then_exit": run_main(subject, canned_turns, ["", "exit", "fix it"])}


def judge_exit(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    visible, mentions = part(seen, "visible"), part(seen, "mentions")
    first, blank = part(seen, "first"), part(seen, "blank_then_exit")
    problem = ran(visible, 2) or ran(mentions, 2) or ran(first, 2) or ran(blank, 2)
    if problem:
        yield problem
        return
    if visible.get("prompts") != 2:
        yield f"main must stop reading at 'exit'; it asked {visible.get('prompts')} questions (section 2)"
    if visible.get("calls") != 1 or len(visible["log"]) != 2:
        yield "'exit' is not a request: it is never pushed nor run (section 2)"
    if mentions.get("calls") != 2:
        yield "a request that merely mentions exit is a request; only the whole line 'exit' stops main (section 2)"
    if users(mentions["log"]) != inputs["mentions"]:
        yield "requests mentioning exit must be pushed like any other (section 2)"
    if mentions.get("prompts") != 3:
        yield "'exit' with spaces around it must stop main: strip first (section 2)"
    if first.get("is_mine") is not True or first.get("length") != 2 or first.get("calls") != 0:
        yield "'exit' as the first line must stop main at once, leaving the history as it was (section 2)"
    if first.get("prompts") != 1:
        yield "after 'exit' main must not ask for another line (section 2)"
    if blank.get("calls") != 0 or blank["log"] != [] or blank.get("prompts") != 2:
        yield "a blank line then 'exit' ends an empty session (section 2)"


@drive_guarded
def drive_end_of_input(subject, inputs):
    first, second, third = inputs["lines"]
    earlier = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": [{"type": "text", "text": "Hi."}]}]
    run = run_main(subject, canned_turns, [first, "", third], messages=earlier)
    return {"visible": run_main(subject, canned_turns, ["first request", "second request"]),
            "empty": run_main(subject, canned_turns, []),
            "earlier": {**run, "length": len(held(run)) if held(run) is not None else None}}


def judge_end_of_input(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    if ran_away(seen.get("visible"), seen.get("empty"), seen.get("earlier")):
        yield RUNAWAY
        return
    for run in (seen.get("visible"), seen.get("empty"), seen.get("earlier")):
        if isinstance(run, dict) and "raised" in run:
            yield f"at the end of input main must return the history, but it raised " \
                  f"{run.get('raised')}: {run.get('message')} (section 2)"
            return
    visible, empty, earlier = part(seen, "visible"), part(seen, "empty"), part(seen, "earlier")
    problem = ran(visible, 2) or ran(empty, 2) or ran(earlier, 2)
    if problem:
        yield problem
        return
    if len(visible["log"]) != 4:
        yield "every line before the end of input is run, then main returns (section 2)"
    if visible.get("prompts") != 3:
        yield "main stops at the first EOFError, without asking again (section 2)"
    if empty["log"] != [] or empty.get("calls") != 0:
        yield "input that ends at once must give an empty history, and no turn (section 2)"
    if empty.get("prompts") != 1:
        yield f"after EOFError main must not ask again; it asked {empty.get('prompts')} times (section 2)"
    if "Traceback" in str(empty.get("out")) + str(empty.get("err")):
        yield "the end of input is not an error: print no traceback (section 2)"
    if earlier.get("is_mine") is not True or earlier.get("length") != 6 or earlier.get("calls") != 2:
        yield "at the end of input main must return the caller's list with every turn in it (section 2)"
    if earlier.get("prompts") != 4:
        yield "three lines, then one EOFError, then stop (section 2)"


# --- section 3: failed turns repaired --------------------------------------------------------------

DANGLING = [("visible", [], ["ok first", "crash now", "ok third"]),
            ("deep", [], ["ok alpha", "deep dive into src/", "ok omega"]),
            ("results", [], ["results of the tests?", "ok next"]),
            ("earlier", [{"role": "user", "content": "hello"},
                         {"role": "assistant", "content": [{"type": "text", "text": "Hi there."}]}],
             ["crash please", "ok then", "crash again", "deep trouble"]),
            ("gate", [], ["ok look around", "gate the build clean-up"]),
            ("first", [], ["crash at once", "ok second"])]


@drive_guarded
def drive_dangling(subject, inputs):
    seen = {}
    for name, earlier, lines in inputs["sessions"]:
        run = run_main(subject, failing_turns, lines, messages=earlier or None)
        seen[name] = {**run, "is_mine": not earlier or run.get("is_mine")}
    return seen


def good_lines(lines, failing):
    return [line for line in lines if (line.split() or [""])[0] not in failing]


def judge_dangling(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    for name, earlier, lines in inputs["sessions"]:
        run = part(seen, name)
        if ran_away(run):
            yield RUNAWAY
            return
        if isinstance(run, dict) and "raised" in run:
            yield f"a failed turn must not end main, but it raised {run.get('raised')}: {run.get('message')} (section 3)"
            return
        problem = ran(run, 3)
        if problem:
            yield problem
            return
        hint = {"visible": "the failed turn must be popped, the turns before and after it kept",
                "deep": "pop until at rest: a turn that got further leaves more entries to pop",
                "results": "a turn that failed after its tool results were pushed must be popped entirely",
                "earlier": "the repair must keep every finished turn, the caller's earlier ones included",
                "gate": "an EOFError from the gate is a failed turn: report it and repair the log",
                "first": "a failed first turn must leave an empty history, ready for the next line"}.get(name, "")
        expected = earlier + turns(good_lines(lines, ("crash", "deep", "results", "gate")))
        for message in repaired(run, expected, 3, hint):
            yield message
            return
        if run.get("is_mine") is not True:
            yield "main must repair the caller's own list (section 3)"
        if name == "visible" and len(errors(run)) != 1:
            yield f"one failed turn, one line 'error: ...' on stdout; got {run.get('out')!r} (section 3)"
        if name == "gate" and not errors(run):
            yield "an EOFError inside a turn must be reported on a line 'error: ...' (section 3)"


@drive_guarded
def drive_ctrl_c(subject, inputs):
    return {"visible": run_main(subject, interrupted_turns, inputs["visible"]),
            "twice": run_main(subject, interrupted_turns, inputs["twice"]),
            "expected": explained(KeyboardInterrupt())}


def judge_ctrl_c(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    visible, twice = part(seen, "visible"), part(seen, "twice")
    if ran_away(visible, twice):
        yield RUNAWAY
        return
    for run in (visible, twice):
        if isinstance(run, dict) and "raised" in run:
            yield f"main raised {run.get('raised')}: {run.get('message')} (Ctrl-C during a turn must end " \
                  "the turn, not main: catch KeyboardInterrupt too, section 3)"
            return
    problem = ran(visible, 3) or ran(twice, 3)
    if problem:
        yield problem
        return
    kept = [line for line in inputs["visible"] if not line.startswith("stop")]
    if users(visible["log"]) != kept:
        yield "after Ctrl-C main must repair the log and read the next line (section 3)"
        return
    for message in repaired(visible, turns(kept), 3, "after Ctrl-C main must repair the log"):
        yield message
        return
    expected = seen.get("expected")
    if not isinstance(expected, str) or expected not in str(visible.get("out")).splitlines():
        yield f"an interrupted turn must print 'error: ' + explain(exc); the output was {visible.get('out')!r} (section 3)"
    kept = [line for line in inputs["twice"] if not line.startswith("stop")]
    for message in repaired(twice, turns(kept), 3, "every interrupted turn must be popped, and the session goes on"):
        yield message
        return
    if len(errors(twice)) != 2:
        yield "one 'error: ' line per interrupted turn (section 3)"


# --- section 4: the turn limit ---------------------------------------------------------------------

@drive_guarded
def drive_turn_limit(subject, inputs):
    seen = {}
    for name, rounds, earlier, lines in inputs["sessions"]:
        run = run_main(subject, limited_turns(rounds), lines, messages=earlier or None)
        seen[name] = {**run, "is_mine": not earlier or run.get("is_mine")}
    return seen


def judge_turn_limit(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    for name, rounds, earlier, lines in inputs["sessions"]:
        run = part(seen, name)
        problem = ran(run, 4)
        if problem:
            yield problem
            return
        kept = [line for line in lines if not line.startswith("loop")]
        if run.get("rest"):
            yield f"a turn cut off by the turn limit must be popped until the log is at rest: {run['rest']} (section 4)"
            return
        if normal(run.get("log")) != normal(earlier + turns(kept)):
            yield {"visible": "a turn cut off by the turn limit must be popped like a failed one (section 4)",
                   "earlier": "the repair after the turn limit must keep every finished turn (section 4)",
                   "only_loops": "two cut-off turns and nothing else must leave an empty history (section 4)"}.get(
                name, "a turn cut off by the turn limit must be popped (section 4)")
            return
        if run.get("is_mine") is not True:
            yield "main must repair the caller's own list (section 4)"
        found = errors(run)
        if name == "visible" and (len(found) != 1 or len(found[0]) <= len("error: ")):
            yield f"the turn limit must be reported on one line 'error: ...'; the output was {run.get('out')!r} (section 4)"
        if name == "earlier" and len(found) != 1:
            yield "one 'error: ' line for the one cut-off turn, none for the good ones (section 4)"


# --- section 5: model errors -----------------------------------------------------------------------

MODEL_ERRORS = [
    [["first try", "second try"], [[1, "bug", "the model fell over"]]],
    [["which files changed?", "add a changelog entry", "run the linter"], [[2, "rate_limit", "rate_limit_error"]]],
    [["list the tests", "then count them"], [[1, "connection", ""]]],
    [["explain pager.py", "summarise utils.py", "exit", "never read"], [[1, "bug", "disk on fire, code 5521"]]],
    [["bump the version", "tag the release", "push it"], [[1, "not_found", "model: claude-retired-0"],
                                                          [2, "connection", ""]]],
]


@drive_guarded
def drive_model_error(subject, inputs):
    cases = []
    for lines, failures in inputs["cases"]:
        model = FailingModel({n: (kind, detail) for n, kind, detail in failures})
        run = run_main(subject, model_turns, lines, model=(model, subject.proxy("model", model)))
        cases.append({**run, "calls": model.calls,
                      "expected": [explained(failure(kind, detail)) for _, kind, detail in failures]})
    return {"cases": cases}


def judge_model_error(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    cases = seen.get("cases") if isinstance(seen.get("cases"), list) else []
    if len(cases) != len(inputs["cases"]):
        yield "main could not be run on every case (section 5)"
        return
    for n, (run, (lines, failures)) in enumerate(zip(cases, inputs["cases"])):
        if not isinstance(run, dict):
            yield "main could not be run (section 5)"
            return
        if ran_away(run):
            yield RUNAWAY
            return
        if "raised" in run:
            yield f"a model error must not end main, but it raised {run.get('raised')}: {run.get('message')} (section 5)"
            return
        problem = ran(run, 5)
        if problem:
            yield problem
            return
        run_lines = lines[:lines.index("exit")] if "exit" in lines else lines
        failed = {f[0] for f in failures}
        kept = [line for i, line in enumerate(run_lines, 1) if i not in failed]
        expected = run.get("expected")
        replies = [f"answer {i}" for i, line in enumerate(run_lines, 1) if i not in failed]
        if n == 0:
            if users(run["log"]) != kept:
                yield "after a model error main must repair the history and read the next line (section 5)"
                return
            if not isinstance(expected, list) or not expected or expected[0] not in str(run.get("out")).splitlines():
                yield f"print 'error: ' + explain(exc) on one line of stdout; stdout was {run.get('out')!r}, " \
                      f"stderr {run.get('err')!r} (section 5)"
                return
            for message in repaired(run, turns(kept, replies), 5,
                                    "after a model error main must repair the history and read the next line"):
                yield message
                return
            continue
        if errors(run) != expected:
            yield f"each failed turn must print exactly one line 'error: ' + explain(exc) on stdout; " \
                  f"expected {expected}, got {errors(run)} (section 5)"
            return
        if "Traceback" in str(run.get("out")) + str(run.get("err")):
            yield "a failed turn is reported in one sentence, not a traceback (section 5)"
            return
        for message in repaired(run, turns(kept, replies), 5,
                                "after a model error main must repair and go on with the next line"):
            yield message
            return
        if run.get("calls") != len(run_lines):
            yield "every line after a failed turn must still be run (section 5)"
            return


BEHAVIOURS = [
    # First: it pays for importing nano.loop, and with it the SDK.
    Behaviour("l06_one_history_across_lines", drive_history, judge_history, draw=draw_history, timeout=60),
    Behaviour("l06_passes_ask_and_model", drive_passes, judge_passes, draw=draw_passes),
    Behaviour("l06_blank_lines_skipped", drive_blank, judge_blank, draw=draw_two),
    Behaviour("l06_exit_stops", drive_exit, judge_exit,
              given={"mentions": ["make the script exit with code 3 on bad input", "exit the loop early in scan.py"]}),
    Behaviour("l06_end_of_input_stops", drive_end_of_input, judge_end_of_input, draw=draw_two),
    Behaviour("l06_dangling_tool_use_repaired", drive_dangling, judge_dangling,
              given={"sessions": [list(s) for s in DANGLING]}),
    Behaviour("l06_ctrl_c_during_a_turn", drive_ctrl_c, judge_ctrl_c,
              given={"visible": ["list the files", "stop that sleep", "read notes.md"],
                     "twice": ["stop before anything", "stop again", "count the tests"]}),
    Behaviour("l06_turn_limit_repaired", drive_turn_limit, judge_turn_limit,
              given={"sessions": [
                  ["visible", 1, [], ["loop until the tests pass", "something small"]],
                  ["earlier", 4, [{"role": "user", "content": "hi"},
                                  {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}],
                   ["read the README", "loop over every file", "summarise it"]],
                  ["only_loops", 3, [], ["loop a", "loop b"]]]}),
    Behaviour("l06_model_error_reported", drive_model_error, judge_model_error, given={"cases": MODEL_ERRORS}),
]
