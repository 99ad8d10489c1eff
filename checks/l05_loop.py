"""Lecture 05's rules for agent_loop (nano/loop.py): the doubles, drives and judges of
checks/l05.py's agent_loop cells.

A case is one run of agent_loop, as plain data: the caller's list (`start`), the scripted
model's replies (`replies`, each a list of blocks), what the stand-in run_tool answers (`tools`:
a text, or one per tool name with "*" for the rest, where {name}, {path} and {command} are the
request's; `raises`: {path: [exception, message]}), and what the human answers the gate
(`answers`, in order, then yes). run_tool, confirm and (for a reply without tools) call_model
stand in as doubles answered by the check, however the loop reaches them (imported at the top,
inside the function, or as `nano.tools.run_tool`), so a slip in lectures 02-04 costs nothing
here; the caller's list is one the subject holds, read back after the run as the API would see
it. The judges know the truth from the case alone.
"""

import json

from checks import doubles
from checks.doubles import Raise
from checks.kit import written
from checks.l05_seen import at, equal, listed, part, raised, text_of

GATED = ("write_file", "edit_file", "bash")  # nano.gate.GATED (lecture 04): the tools that need a yes
MAX_TURNS = 25  # nano.loop.MAX_TURNS, agent_loop's default limit
ERRORS = ("FileNotFoundError", "ValueError", "TimeoutError", "RuntimeError")


def testing():
    return doubles.given("testing")


# ---------------------------------------------------------------------------------------------
# What a case says the doubles answer, and what it asks for

def output(case, name, input):
    """What run_tool answers in `case` for (name, input): ["value", text] or ["raise", kind, message]."""
    fields = input if isinstance(input, dict) else {}
    path = fields.get("path")
    errors = case.get("raises", {})
    if isinstance(path, str) and path in errors:
        kind, message = errors[path]
        return ["raise", kind if kind in ERRORS else "RuntimeError", message]
    tools = case["tools"] if isinstance(case["tools"], dict) else {"*": case["tools"]}
    template = tools.get(name, tools.get("*")) if isinstance(name, str) else tools.get("*")
    if template is None:
        return ["raise", "ValueError", f"Unknown tool {str(name)[:100]!r}"]
    for key, value in (("{name}", name), ("{path}", path), ("{command}", fields.get("command"))):
        template = template.replace(key, str(value))
    return ["value", template]


def requests(case):
    """The tool_use blocks of each reply, as [id, name, input]."""
    return [[[b["id"], b["name"], b["input"]] for b in reply if b.get("type") == "tool_use"] for reply in case["replies"]]


def every_request(case):
    return [request for turn in requests(case) for request in turn]


def expected_results(case):
    """Each reply's tool results as the case's doubles answer them (the gate by its answers):
    [id, name, "declined" | "value" | "raise", content]."""
    answers = list(case.get("answers", []))
    turns = []
    for turn in requests(case):
        results = []
        for id, name, input in turn:
            if name in GATED and not (answers.pop(0) if answers else True):
                results.append([id, name, "declined", None])
            else:
                got = output(case, name, input)
                results.append([id, name, got[0], got[-1]])
        turns.append(results)
    return turns


# ---------------------------------------------------------------------------------------------
# Doubles, answered here. Each handler receives what the hand-in's code sent (any JSON) and
# logs it. Nothing here may crash on odd input: a builtin exception is raised in the subject,
# as a real function would raise it.

def arguments(args, kwargs, names):
    """The values of `names`, passed by position or by keyword (None where missing)."""
    values = list(args[:len(names)]) + [None] * max(0, len(names) - len(args))
    for index, name in enumerate(names):
        if name in kwargs:
            values[index] = kwargs[name]
    return values


def tool_handler(log, case):
    """run_tool's double: logs ["run", name, input] and answers as the case says (refusing to
    run anything for a case with `no_tools`)."""
    def run_tool(*args, **kwargs):
        name, input = arguments(args, kwargs, ("name", "input"))
        log.append(["run", name, input])
        if case.get("no_tools"):
            raise Raise("AssertionError", f"agent_loop ran {str(name)[:100]}, but the reply asked for no tool")
        got = output(case, name, input)
        if got[0] == "raise":
            raise Raise(got[1], got[2])
        return got[1]
    return run_tool


def gate_handler(subject, log, case, asker):
    """confirm's double: logs ["ask", name, input, whether it was given agent_loop's asker] and
    answers with the case's next answer, then yes."""
    answers = list(case.get("answers", []))

    def confirm(*args, **kwargs):
        refs, kwrefs = subject.refs, subject.kwrefs
        ask, name, input = arguments(args, kwargs, ("ask", "name", "input"))
        if "ask" in kwargs:
            same = isinstance(kwrefs, dict) and kwrefs.get("ask") == asker.number
        else:
            same = isinstance(refs, list) and bool(refs) and refs[0] == asker.number
        log.append(["ask", name, input, same])
        if case.get("no_tools"):
            raise Raise("AssertionError", f"agent_loop asked the gate about {str(name)[:100]}, but the reply asked "
                                          "for no tool")
        return answers.pop(0) if answers else True
    return confirm


def model_handler(log):
    def call_model(*args, **kwargs):
        log.append(["call_model", None])
        raise Raise("AssertionError", "agent_loop called call_model by name")
    return call_model


def run_loop(subject, case, replies=None):
    """agent_loop(messages, ask, model, **limit) in the subject on `case` (its `replies`, or
    these scripted replies), with run_tool and confirm (and call_model, for a reply without
    tools) standing in: how it ended, the caller's list read back after it, what the model was
    sent, what the doubles were asked, and what it printed."""
    t = testing()
    log = []
    script = [t.reply(*blocks) for blocks in case["replies"]] if replies is None else replies
    recorder, model = doubles.model(subject, script)
    asker, ask = doubles.asker(subject, refuse=True)
    subject.read("nano.loop.agent_loop")  # imported first, so that `also` finds its names
    subject.stand("nano.tools.run_tool", tool_handler(log, case), also=["nano.loop"])
    subject.stand("nano.gate.confirm", gate_handler(subject, log, case, ask), also=["nano.loop"])
    if case.get("no_tools"):
        subject.stand("nano.model.call_model", model_handler(log), also=["nano.loop"])
    messages = subject.make(case["start"])
    limit = {"max_turns": case["max_turns"]} if case.get("max_turns") is not None else {}
    result = subject.call("nano.loop.agent_loop", messages, ask, model, capture=True, **limit)
    after = subject.read(messages)
    kept = after.get("value") if isinstance(after, dict) and "raised" not in after else None
    return {"status": result.get("value") if isinstance(result.get("value"), str) else None,
            "raised": result.get("raised"), "message": result.get("message"),
            "roles": [m.get("role") if isinstance(m, dict) else None for m in listed(kept)],
            "messages": kept, "calls": recorder.calls, "seen": recorder.seen,
            "replies": [r.get("content") for r in recorder.replies], "log": log, "prompts": len(asker.prompts),
            "printed": f"{result.get('stdout') or ''}\n{result.get('stderr') or ''}"}


def drive_runs(subject, inputs):
    """agent_loop on each case."""
    return {"runs": [run_loop(subject, case) for case in inputs["cases"]]}


def stopped(inputs, seen, section):
    """The sentence for the first run that raised, if one did."""
    found = listed(seen.get("runs"))
    for index, _ in enumerate(inputs["cases"]):
        for message in raised("agent_loop", part(found, index), section):
            yield message
            return


def runs(inputs, seen):
    """Each case beside its run."""
    found = listed(seen.get("runs"))
    return [(case, part(found, index)) for index, case in enumerate(inputs["cases"])]


def ran(run):
    return [[e[1], e[2]] for e in listed(run.get("log")) if isinstance(e, list) and len(e) >= 3 and e[0] == "run"]


def asked(run):
    """What the gate was asked, in order: [name, input, whether with agent_loop's asker]."""
    return [[e[1], e[2], e[3]] for e in listed(run.get("log")) if isinstance(e, list) and len(e) == 4 and e[0] == "ask"]


def user_results(messages):
    """Every block of every user message after the first (plain data): the tool results."""
    return [b for m in listed(messages)[1:] if isinstance(m, dict) and m.get("role") == "user"
            and isinstance(m.get("content"), list) for b in m["content"]]


def entries(run, case):
    """The entries agent_loop added to the caller's list."""
    return listed(run.get("messages"))[len(case["start"]):]


# ---------------------------------------------------------------------------------------------
# Section 2: a reply without tool requests, and the assistant turn

def judge_text_reply(inputs, seen):
    """Each case's one reply asks for no tool: nothing runs, one entry is added, "done"."""
    for case, run in ((case, part(listed(seen.get("runs")), i)) for i, case in enumerate(inputs["cases"])):
        for event in listed(run.get("log")):
            kind, name = at(event, 0), at(event, 1)
            if kind == "run":
                yield f"agent_loop ran {name}, but the reply asked for no tool (section 2)"
            elif kind == "ask":
                yield f"agent_loop asked the gate about {name}, but the reply asked for no tool (section 2)"
            else:
                yield "agent_loop called call_model by name; it must call the model it was given (section 2)"
            return
        stop = list(raised("agent_loop", run, 2))
        if stop:
            yield from stop
        elif run.get("calls") != 1:
            yield f"a text-only reply must end the loop after one model call; it made {run.get('calls')} (section 2)"
        elif not equal(at(run, "seen", 0), case["start"]):
            yield "the model must be called with the messages list (section 2)"
        elif listed(run.get("roles")) != ["user", "assistant"] or not equal(at(run, "messages", 0), case["start"][0]):
            yield (f"a text-only reply adds exactly one entry, the assistant's: expected two entries, user then "
                   f"assistant; got {run.get('roles')} (sections 2 and 4)")
        elif run.get("status") != "done":
            yield f"agent_loop returned {run.get('status')!r}; a finished run returns 'done' (section 4)"
        else:
            continue
        return


LOST_THINKING = ("messages[{index}] lost or changed the reply's thinking block: push reply.content as it came; "
                 "the API refuses a tool-use turn sent back without its thinking (section 2)")


def thoughts(content):
    """The thinking blocks of a content list, in order."""
    return [b for b in listed(content) if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")]


def judge_verbatim(inputs, seen):
    """Each assistant entry is exactly {"role": "assistant", "content": the reply's content}, in
    the caller's list and in what the model was sent on its next call."""
    yield from stopped(inputs, seen, 2)
    for case, run in runs(inputs, seen):
        messages, sent, replies = listed(run.get("messages")), listed(run.get("seen")), listed(run.get("replies"))
        found = [(i, m) for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"]
        if len(found) != len(case["replies"]):
            yield (f"{len(case['replies'])} model calls must give {len(case['replies'])} assistant entries, got "
                   f"{len(found)} (section 2)")
            return
        for call, ((index, entry), content) in enumerate(zip(found, replies)):
            expected = {"role": "assistant", "content": content}
            if equal(entry, expected):
                if at(sent, call + 1) is not None and not equal(at(sent, call + 1, index), expected):
                    yield (f"the model's next call must be sent messages[{index}] exactly as the reply came "
                           "(section 2)")
                    return
                continue
            if not equal(thoughts(at(entry, "content")), thoughts(content)):
                yield LOST_THINKING.format(index=index)
            else:
                yield (f"messages[{index}] must be exactly the reply's content as it came, "
                       '{"role": "assistant", "content": reply.content}, thinking and tool_use blocks included: '
                       "nothing filtered, rebuilt or added (section 2)")
            return


# ---------------------------------------------------------------------------------------------
# Sections 3 and 4: results, errors, the gate, one message, the list

def result_entry(results):
    """The user entry that answers one turn's expected results (content checked by the caller)."""
    return [{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": kind == "raise"}
            for id, _, kind, content in results]


def turn_entries(run, case):
    """[(index in messages, the user entry after each reply that asked for tools, the expected results)]."""
    messages = listed(run.get("messages"))
    start, out = len(case["start"]), []
    for number, results in enumerate(expected_results(case)):
        if results:
            index = start + 2 * number + 1
            out.append((index, at(messages, index), results))
    return out


def judge_by_id(inputs, seen):
    """Each tool request runs once, in order, and gets one tool_result of exactly four keys with
    its block's id and run_tool's result; the model's next call sees it."""
    yield from stopped(inputs, seen, 3)
    for case, run in runs(inputs, seen):
        wanted = [[name, input] for _, name, input in every_request(case)]
        if not equal(ran(run), wanted):
            yield f"run_tool must run each requested tool once, in order: expected {wanted}, ran {ran(run)} (section 3)"
            return
        got = [r.get("tool_use_id") if isinstance(r, dict) else None for r in user_results(run.get("messages"))]
        ids = [id for id, _, _ in every_request(case)]
        if got != ids:
            yield (f"each result's tool_use_id must be its tool_use block's id, in order; expected {ids}, "
                   f"got {got} (section 3)")
            return
        for index, entry, results in turn_entries(run, case):
            expected = {"role": "user", "content": result_entry(results)}
            if not equal(entry, expected):
                yield (f"messages[{index}] must be one user message holding the tool_result for "
                       f"{', '.join(r[0] for r in results)}, with exactly type, tool_use_id, content and is_error "
                       f"(False too): expected {expected!r}, got {entry!r} (sections 3 and 4)")
                return
            if not equal(at(run, "seen", (index - len(case["start"]) + 1) // 2, -1), expected):
                yield "the model's next call must see the results (section 4)"
                return
        if run.get("status") != "done":
            yield f"agent_loop returned {run.get('status')!r}, expected 'done' (section 4)"
            return


def judge_printed(inputs, seen):
    """What a person watching sees (on stdout, or stderr): each text block's text, and for each
    tool request, in order, one line "●", the tool's name and its input. A request the human
    declines and one whose tool fails get their line too: it comes before the gate and the tool."""
    yield from stopped(inputs, seen, 3)
    for case, run in runs(inputs, seen):
        printed = run.get("printed") if isinstance(run.get("printed"), str) else ""
        texts = [b["text"] for reply in case["replies"] for b in reply if b.get("type") == "text"]
        missing = [text for text in texts if text not in printed]
        if missing:
            yield f"agent_loop must print each text block's text; it did not print {missing[0]!r} (section 2)"
            return
        lines = [line.strip() for line in printed.splitlines() if line.strip().startswith("●")]
        wanted = every_request(case)
        if len(lines) != len(wanted):
            example = f"● {wanted[0][1]}({json.dumps(wanted[0][2])})" if wanted else "● NAME(INPUT)"
            yield (f"agent_loop must print one line per tool request, '●' then the tool's name and its input as "
                   f"JSON, as in {example}, before the gate asks or the tool runs (a declined or failed one too); "
                   f"{len(wanted)} requests gave {len(lines)} such lines (section 3)")
            return
        for line, (_, name, input) in zip(lines, wanted):
            values = [v[:20] for v in input.values() if isinstance(v, str)] if isinstance(input, dict) else []
            if name not in line or not all(v in line for v in values):
                yield (f"the line for each tool request must hold the tool's name and its input, in the order of "
                       f"the requests: expected one like ● {name}({json.dumps(input)}), got {line!r} (section 3)")
                return


def judge_tool_error(inputs, seen):
    """A tool that raised gives a result with is_error True carrying the exception's message;
    the others in the turn keep theirs; the loop goes on and the model sees the errors."""
    yield from stopped(inputs, seen, 3)
    for case, run in runs(inputs, seen):
        wanted = [result for turn in expected_results(case) for result in turn]
        results = [r if isinstance(r, dict) else {} for r in user_results(run.get("messages"))]
        if len(results) != len(wanted):
            yield (f"every request needs its result, even when some tools fail: {len(wanted)} requests, "
                   f"{len(results)} results (section 3)")
            return
        for r, (id, name, kind, content) in zip(results, wanted):
            if kind == "raise" and r.get("is_error") is not True:
                yield f"a tool that raised must give a result with is_error: True; {name} for {id} raised (section 3)"
            elif kind == "raise" and content not in text_of(r.get("content")):
                yield (f"the error result must carry the exception's own message, {content!r}; "
                       f"got {r.get('content')!r} (section 3)")
            elif kind != "raise" and (r.get("content") != content or r.get("is_error", False) is not False):
                yield "a tool that returned normally in the same turn keeps its result, is_error False (section 3)"
            else:
                continue
            return
        if run.get("calls") != len(case["replies"]) or run.get("status") != "done":
            yield "after an error result the loop must go on and call the model again, until it stops (section 3)"
            return
        for index, entry, results in turn_entries(run, case):
            if not equal(at(run, "seen", (index - len(case["start"]) + 1) // 2, -1), entry):
                yield "the model must see the error on its next call (section 3)"
                return


def declined(result):
    return isinstance(result, dict) and "declined" in text_of(result.get("content")).lower()


def judge_declined(inputs, seen):
    """A gated request is asked about once, as confirm(ask, name, input), before it runs; a no
    means it never runs and its result says declined, is_error False; a yes runs it."""
    yield from stopped(inputs, seen, 3)
    for case, run in runs(inputs, seen):
        log = [e[:3] if at(e, 0) == "ask" else e for e in listed(run.get("log"))]
        wanted = [[name, input, True] for _, name, input in every_request(case) if name in GATED]
        if not equal(asked(run), wanted):
            yield (f"confirm must be called once per gated request, as confirm(ask, block.name, block.input) with "
                   f"agent_loop's own ask: expected {wanted}, got {asked(run)} (section 3)")
            return
        results = [r if isinstance(r, dict) else {} for r in user_results(run.get("messages"))]
        for number, (id, name, kind, content) in enumerate(r for turn in expected_results(case) for r in turn):
            request = at(every_request(case), number, 2)
            if kind == "declined" and ["run", name, request] in log:
                yield f"a declined {name} must never run: ask first, run only after a yes; saw {log} (section 3)"
            elif kind == "declined" and not declined(at(results, number)):
                yield "a declined call's result must say it was declined: its content is DECLINED (section 3)"
            elif kind == "declined" and part(results, number).get("is_error") is not False:
                yield "a declined call is not an error: is_error must be False, written out (section 3)"
            elif kind != "declined" and ["run", name, request] not in log:
                yield f"an approved {name} must run (section 3)"
            elif kind != "declined" and name in GATED and \
                    log.index(["ask", name, request]) > log.index(["run", name, request]):
                yield f"the gate must be asked before {name} runs, never after (section 3)"
            elif kind == "value" and part(results, number).get("content") != content:
                yield f"the approved {name} gets run_tool's result (section 3)"
            else:
                continue
            return
        if run.get("calls") != len(case["replies"]):
            yield "after a denial the loop goes on and tells the model (section 3)"
            return


def judge_ungated(inputs, seen):
    """Only the tools in GATED go through the gate (by confirm, never the asker itself); the
    others run without asking."""
    yield from stopped(inputs, seen, 3)
    for case, run in runs(inputs, seen):
        names = [name for name, _, _ in asked(run)]
        wanted = [name for _, name, _ in every_request(case) if name in GATED]
        if names != wanted:
            yield (f"only the tools in GATED go through the gate ({', '.join(GATED)}); read_file, list_files and "
                   f"any other tool run without asking: it should be asked about {wanted}, it was asked about "
                   f"{names} (section 3)")
            return
        if run.get("prompts") != 0:
            yield "agent_loop must go through confirm, never ask the asker directly (section 3)"
            return
        contents = [at(r, "content") for r in user_results(run.get("messages"))]
        expected = [content for turn in expected_results(case) for _, _, _, content in turn]
        if contents != expected:
            yield (f"a tool that is not in GATED runs without asking: expected the results {expected}, got "
                   f"{contents} (section 3)")
            return


def judge_one_message(inputs, seen):
    """Each turn's results go back in one user message, in the order of the requests, and the
    model is called once after each."""
    yield from stopped(inputs, seen, 4)
    for case, run in runs(inputs, seen):
        turns = len(case["replies"])
        roles = ["user"] * len(case["start"]) + ["assistant", "user"] * (turns - 1) + ["assistant"]
        if run.get("roles") != roles:
            yield f"each turn's results go back in ONE user message; roles were {run.get('roles')} (section 4)"
            return
        for index, entry, results in turn_entries(run, case):
            got = [at(r, "content") for r in listed(at(entry, "content"))]
            if got != [content for _, _, _, content in results]:
                yield (f"one user message must hold all the results of its turn, in the order of the requests: "
                       f"expected {[content for _, _, _, content in results]}, got {got} (section 4)")
                return
        lengths = [len(s) if isinstance(s, list) else None for s in listed(run.get("seen"))]
        if lengths != [len(case["start"]) + 2 * n for n in range(turns)]:
            yield "the model must be called once after each single results message (section 4)"
            return
        if run.get("status") != "done":
            yield f"agent_loop returned {run.get('status')!r}, expected 'done' (section 4)"
            return


def judge_callers_list(inputs, seen):
    """The caller's list grows in place: what was in it stays, each reply and each turn's
    results are appended, and the model sees that same list growing."""
    yield from stopped(inputs, seen, 4)
    for case, run in runs(inputs, seen):
        start, turns = len(case["start"]), len(case["replies"])
        length = len(listed(run.get("messages")))
        if length != start + 2 * turns - 1:
            yield (f"agent_loop must append to the caller's list; the caller's list has {length} entries, expected "
                   f"{start + 2 * turns - 1} (section 4)")
            return
        if not equal(listed(run.get("messages"))[:start], case["start"]):
            yield "the entries already in the list must stay as they were (section 4)"
            return
        if [len(s) if isinstance(s, list) else None for s in listed(run.get("seen"))] != \
                [start + 2 * n for n in range(turns)]:
            yield "the model must see the same list growing, call after call (section 4)"
            return


# ---------------------------------------------------------------------------------------------
# Section 4: the turn limit. A case: `max_turns` (None: the default), and a model that asks for
# `asks` listings on every call, or, when it `finishes`, stops on call max_turns.

def drive_turn_limit(subject, inputs):
    t = testing()
    found = []
    for case in inputs["cases"]:
        limit = case.get("max_turns") or MAX_TURNS
        if case.get("finishes"):
            replies = [[t.tool_use(f"toolu_fin_{i}", "list_files", {"path": "."})] for i in range(limit - 1)]
            replies.append([t.text("Done.")])
        else:  # scripted 60 calls deep: past that, the model raises, and a loop without a limit stops there
            replies = [[t.tool_use(f"toolu_forever_{call}_{n}", "list_files", {"path": "."}) for n in range(case["asks"])]
                       for call in range(1, 61)]
        run = run_loop(subject, {**case, "start": [{"role": "user", "content": "List."}], "replies": replies,
                                 "tools": "a.txt"})
        found.append({key: run[key] for key in ("status", "raised", "message", "calls")})
    return {"runs": found}


def judge_turn_limit(inputs, seen):
    found = listed(seen.get("runs"))
    for index, case in enumerate(inputs["cases"]):
        run, limit = part(found, index), case.get("max_turns")
        written("agent_loop", [run], 4)
        if case.get("finishes"):
            if run.get("calls") != limit or run.get("status") != "done":
                yield (f"a model that stops on call {limit} of max_turns={limit} has finished: 'done', "
                       f"not {run.get('status')!r} (section 4)")
                return
        elif limit is None and (run.get("calls") != MAX_TURNS or run.get("status") != "max_turns"):
            yield (f"by default the limit is {MAX_TURNS} model calls (MAX_TURNS); the model was called "
                   f"{run.get('calls')} times (section 4)")
            return
        elif limit is not None and run.get("calls") != limit:
            yield (f"with max_turns={limit} the model must be called exactly {limit} times (model calls, not tool "
                   f"calls); it was called {run.get('calls')} times (section 4)")
            return
        elif run.get("status") != "max_turns":
            yield f"with max_turns={limit} the run must return 'max_turns', not {run.get('status')!r} (section 4)"
            return


# ---------------------------------------------------------------------------------------------
# Section 5: the Celsius trace, as recorded, or with the ids and texts a case renames

def renamed(value, new):
    text = json.dumps(value)
    for old, fresh in new.items():
        text = text.replace(old, fresh)
    return json.loads(text)


def drive_celsius(subject, inputs):
    trace = doubles.given("trace").load_trace()
    replies = [r.model_dump(mode="json", exclude_none=True) for r in trace.replies]
    outputs = {"read_file": trace.entries[2]["content"][0]["content"], "edit_file": trace.entries[4]["content"][0]["content"]}
    answers = [a.strip().lower() in ("y", "yes") for a in trace.answers]
    found = []
    for case in inputs["cases"]:
        new = case["renames"]
        run = run_loop(subject, {"start": [{"role": "user", "content": trace.request}], "replies": [],
                                 "tools": outputs, "answers": answers}, renamed(replies, new))
        found.append({**run, "expected": renamed(trace.entries, new)})
    return {"runs": found}


def first_difference(got, expected):
    """Where two lists of entries first differ, in words."""
    got, expected = listed(got), listed(expected)
    for i in range(max(len(got), len(expected))):
        mine, theirs = at(got, i), at(expected, i)
        if not equal(mine, theirs):
            return f"messages[{i}] is {text_of(mine)[:300]}, expected {text_of(theirs)[:300]}"
    return "they are the same"


def judge_celsius(inputs, seen):
    yield from stopped(inputs, seen, 5)
    for case, run in runs(inputs, seen):
        expected = run.get("expected")
        if not equal(run.get("messages"), expected):
            yield (f"your loop's entries differ from the Celsius trace (section 5): "
                   f"{first_difference(run.get('messages'), expected)}")
        elif run.get("status") != "done":
            yield f"agent_loop returned {run.get('status')!r} after the trace, expected 'done' (section 5)"
        elif isinstance(expected, list) and not equal(run.get("seen"), [expected[:n] for n in (1, 3, 5)]):
            yield "call k of the model must see exactly the entries before it: 1, then 3, then 5 (sections 2 and 4)"
        else:
            continue
        return
