"""Lecture 05's graded behaviours: call_model, agent_loop and the six unlock answers.

call_model talks through the real anthropic SDK to nano/server.py's MessagesServer on loopback,
or to a stand-in client put in `_client`. agent_loop runs against nano.testing's scripted model,
with run_tool, confirm and call_model replaced by doubles through `nano.testing.stand_in`: the
function objects themselves run the double, so a loop that imports them inside the function or
calls `nano.tools.run_tool(...)` meets the same doubles, and a slip in lectures 02-04 costs
nothing here. Each double records what it was asked in a log and hands the answer to a plain
function of this module (`respond`), which is how a stand-in, running with the globals of the
module it replaces, reaches this one. Coroutines run through kit.attempt_async, which gives
them an event loop of their own, in the notebook's kernel as in the check's process.
"""

import contextlib
import inspect
import json
import os
import types
from unittest import mock

from autograder.check.behaviour import Behaviour
from autograder.check.kit import attempt, attempt_async

FIVE = ["max_tokens", "messages", "model", "system", "tools"]


# ---------------------------------------------------------------------------------------------
# Doubles, and how they are installed. A double's body runs with the globals of the function it
# replaces: it uses builtins only, and reaches its log and its `respond` through its defaults.

def tool_double(name, input, log=None, respond=None):
    log.append(["run", name, input])
    return respond(name, input)


async def gate_double(ask, name, input, log=None, respond=None):
    log.append(["ask", name, input, ask])
    return respond(name)


async def model_double(messages, log=None, respond=None):
    log.append(["call_model", len(messages)])
    raise AssertionError("agent_loop called call_model by name")


def stateful(double, log, respond):
    """`double` with its log and its respond function as defaults, ready for stand_in."""
    return types.FunctionType(double.__code__, double.__globals__, double.__name__, (log, respond))


def replaceable(value):
    """Whether stand_in can change `value` in place: a plain function, not a closure."""
    return inspect.isfunction(value) and not value.__closure__


def doubles(log, run_tool=None, confirm=None, call_model=None):
    """An ExitStack that, entered, makes nano's run_tool, confirm and call_model (those given a
    respond function) run their doubles, however agent_loop reaches them."""
    import nano.gate
    import nano.loop
    import nano.model
    import nano.tools
    from nano.testing import stand_in

    stack = contextlib.ExitStack()
    for home, name, double, respond in ((nano.tools, "run_tool", tool_double, run_tool),
                                        (nano.gate, "confirm", gate_double, confirm),
                                        (nano.model, "call_model", model_double, call_model)):
        if respond is None:
            continue
        replacement = stateful(double, log, respond)
        changed = []
        for module in (home, nano.loop):  # after an autoreload the two can hold different objects
            value = getattr(module, name, None)
            if replaceable(value):
                if not any(value is c for c in changed):
                    stack.enter_context(stand_in(value, replacement))
                    changed.append(value)
            elif hasattr(module, name):
                stack.enter_context(mock.patch.object(module, name, replacement))
    return stack


def saying(value):
    """What `respond` returns to each call: a fixed answer, given as a class holding it."""
    return Fixed(value)


class Fixed:
    def __init__(self, value):
        self.value = value

    def __call__(self, *args):
        return self.value


class Answers:
    """The gate's answers, one per question, in order; then yes."""

    def __init__(self, answers):
        self.answers = list(answers)

    def __call__(self, name):
        return self.answers.pop(0) if self.answers else True


class Refuse:
    """A tool or gate that must not be reached: it raises."""

    def __init__(self, what):
        self.what = what

    def __call__(self, *args):
        raise AssertionError(f"agent_loop {self.what} {args[0]}, but the reply asked for no tool")


class Canned:
    """A tool that answers from a template, filled with the request's name, input and its fields."""

    def __init__(self, template, raises=None):
        self.template, self.raises = template, dict(raises or {})

    def __call__(self, name, input):
        fields = dict(input) if isinstance(input, dict) else {}
        key = fields.get("path")
        if key in self.raises:
            kind, message = self.raises[key]
            raise {"FileNotFoundError": FileNotFoundError, "ValueError": ValueError,
                   "TimeoutError": TimeoutError, "RuntimeError": RuntimeError}[kind](message)
        if self.template == "missing":
            raise FileNotFoundError(f"No such file: {key}")
        if self.template == "various":
            return f"ran {fields.get('command')}" if name == "bash" else f"text of {key}"
        return self.template.format(name=name, input=input, path=key)


class FromTable:
    """A tool whose answer is looked up by the tool's name."""

    def __init__(self, table):
        self.table = dict(table)

    def __call__(self, name, input):
        return self.table[name]


def run_loop(messages, ask, model, log, tools=None, gate=None, call_model=None, **limit):
    """attempt(agent_loop(messages, ask, model, **limit)) with the doubles given installed."""
    import nano.loop

    with doubles(log, run_tool=tools, confirm=gate, call_model=call_model):
        return attempt_async(nano.loop.agent_loop, messages, ask, model, **limit)


def wire(value):
    """`value` as the JSON the SDK would send (nano.trace.plain), or a marker if that fails."""
    from nano.trace import plain

    try:
        return plain(value)
    except Exception as exc:
        return {"unplain": type(exc).__name__}


def outcome(result, messages, model=None):
    """What one run of agent_loop left: how it ended, the list (as JSON), the model's calls."""
    seen = {"status": result.get("value") if isinstance(result.get("value"), str) else None,
            "raised": result.get("raised", [None])[0], "message": result.get("message"),
            "roles": [m.get("role") if isinstance(m, dict) else None for m in messages],
            "messages": wire(messages)}
    if model is not None:
        seen.update(calls=model.calls, seen=[wire(s) for s in model.seen])
    return seen


def events(log):
    return [[entry[0], entry[1]] for entry in log]


def user_results(messages):
    """Every block of every user message after the first (plain data), as the tests gather the
    tool results."""
    return [b for m in messages[1:] if isinstance(m, dict) and m.get("role") == "user"
            and isinstance(m.get("content"), list) for b in m["content"]]


def equal(a, b):
    try:
        return bool(a == b)
    except Exception:
        return False


# Judge-side helpers: they read plain data and never raise.

def at(value, *path):
    """value[path[0]][path[1]]..., or None where a step is missing."""
    for key in path:
        if isinstance(value, dict) and isinstance(key, str):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def listed(value):
    return value if isinstance(value, list) else []


def part(value, *path):
    """at(value, *path) if it is a dict, else an empty one."""
    found = at(value, *path)
    return found if isinstance(found, dict) else {}


def raised(run, section):
    """The sentence for a run that raised, or None."""
    if isinstance(run, dict) and run.get("raised"):
        return f"agent_loop raised {run.get('raised')}: {run.get('message')} ({section})"
    return None


def text_of(content):
    return content if isinstance(content, str) else json.dumps(content) if content is not None else ""


# ---------------------------------------------------------------------------------------------
# call_model

class StandInClient:
    """Records what call_model asks of its client instead of sending it anywhere."""

    def __init__(self):
        self.messages = self  # so that client.messages.create(...) lands on create below
        self.sent = []

    async def create(self, **fields):
        self.sent.append(fields)
        return "the reply"

    def build(self, *args, **kwargs):
        return self


def client_builder(replacement):
    """An ExitStack that, entered, makes anthropic.AsyncAnthropic (and nano.model's own name for
    it, if it has one) build `replacement`."""
    import anthropic

    import nano.model

    stack = contextlib.ExitStack()
    stack.enter_context(mock.patch.object(anthropic, "AsyncAnthropic", replacement))
    if hasattr(nano.model, "AsyncAnthropic"):
        stack.enter_context(mock.patch.object(nano.model, "AsyncAnthropic", replacement))
    return stack


def pointed_at(url):
    """An ExitStack that, entered, points the SDK at `url` with a test key, and puts the
    environment back afterwards."""
    stack = contextlib.ExitStack()
    saved = dict(os.environ)

    def restore():
        os.environ.clear()
        os.environ.update(saved)

    stack.callback(restore)
    for key in [k for k in os.environ if k.startswith("ANTHROPIC_")]:
        del os.environ[key]
    os.environ["ANTHROPIC_API_KEY"] = "sk-test-not-a-real-key"
    os.environ["ANTHROPIC_BASE_URL"] = url
    for key in ("NO_PROXY", "no_proxy"):
        os.environ[key] = "127.0.0.1" + (f",{saved[key]}" if saved.get(key) else "")
    return stack


def draw_request(rng):
    return {"token": f"pong-{rng.randrange(10**8)}", "model": f"claude-test-{rng.randrange(10**6)}",
            "max_tokens": rng.randrange(1000, 9000),
            "system": f"You are a test system prompt number {rng.randrange(10**6)}.",
            "ping": f"ping {rng.randrange(10**6)}", "three": f"three {rng.randrange(10**6)}"}


def observe_stand_in_client(inputs, answers):
    """One call_model with a stand-in client in _client: what it asked of create, what it returned."""
    import nano.model

    client, saved = StandInClient(), nano.model._client
    nano.model._client = client
    try:
        with client_builder(client.build):
            got = attempt_async(nano.model.call_model, [{"role": "user", "content": "hi"}])
    finally:
        nano.model._client = saved
    return {"fields": [sorted(str(k) for k in sent) for sent in client.sent], "got": got}


def judge_stand_in_client(inputs, seen):
    fields, got = listed(seen.get("fields")), part(seen, "got")
    if len(fields) != 1:
        if got.get("raised"):
            yield f"call_model raised {at(got, 'raised', 0)}: {got.get('message')} (section 1)"
        yield f"one call_model must make one messages.create call, it made {len(fields)} (section 1)"
        return
    if fields[0] != FIVE:
        yield f"call_model must send exactly model, max_tokens, system, tools and messages; it sent {fields[0]} (section 1)"
    if got.get("value") != "the reply":
        yield "call_model must return what messages.create returned (section 1)"


def observe_five_fields(inputs, answers):
    """Two call_models through the real SDK to a MessagesServer, with MODEL, MAX_TOKENS and
    SYSTEM_PROMPT set to the inputs: the requests that arrived, and what call_model returned."""
    import nano.model
    from nano.server import MessagesServer
    from nano.testing import reply, text, tool_use

    first = [{"role": "user", "content": inputs["ping"]}]
    second = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": reply(text("Reading."), tool_use("toolu_t1", "read_file", {"path": "a.txt"})).content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_t1", "content": "hi", "is_error": False}]},
    ]
    saved = nano.model._client

    async def calls():
        returned = []
        try:
            for messages in (first, second):
                try:
                    got = await nano.model.call_model(messages)
                    returned.append({"type": type(got).__name__, "text": got.content[0].text})
                except Exception as exc:
                    returned.append({"raised": type(exc).__name__, "message": str(exc)})
        finally:
            built = nano.model._client
            if built is not None and built is not saved:
                with contextlib.suppress(Exception):
                    await built.close()
        return returned

    server = MessagesServer([reply(text(inputs["token"])), reply(text(inputs["token"]))])
    with server, pointed_at(server.url), \
            mock.patch.object(nano.model, "MODEL", inputs["model"]), \
            mock.patch.object(nano.model, "MAX_TOKENS", inputs["max_tokens"]), \
            mock.patch.object(nano.model, "SYSTEM_PROMPT", inputs["system"]):
        nano.model._client = None
        try:
            result = attempt_async(calls)
        finally:
            nano.model._client = saved
    try:
        tools = json.loads(json.dumps(nano.model.TOOLS))
    except Exception as exc:
        tools = {"unreadable": type(exc).__name__}
    return {"requests": [[r.path, r.body] for r in server.requests], "returned": result.get("value"),
            "raised": result.get("raised"), "tools": tools, "sent": [wire(first), wire(second)]}


def judge_five_fields(inputs, seen):
    requests, returned = listed(seen.get("requests")), listed(seen.get("returned"))
    for r in returned:
        if isinstance(r, dict) and r.get("raised"):
            yield f"call_model raised {r['raised']}: {r.get('message')} (section 1)"
            break
    if len(requests) != 2:
        yield f"two calls to call_model must send two requests; the server saw {len(requests)} (section 1)"
        return
    for request, sent in zip(requests, listed(seen.get("sent"))):
        path, body = at(request, 0), at(request, 1)
        if not isinstance(path, str) or path.split("?")[0] != "/v1/messages":
            yield f"call_model must use client.messages.create (request went to {path}) (section 1)"
        if not isinstance(body, dict):
            yield "call_model must send a JSON request body (section 1)"
            continue
        if sorted(body) != FIVE:
            yield f"call_model must send exactly model, max_tokens, system, tools and messages; it sent {sorted(body)} (section 1)"
        if body.get("model") != inputs["model"]:
            yield "model= must be MODEL, the module's setting, not a copy of its value (section 1)"
        if body.get("max_tokens") != inputs["max_tokens"]:
            yield "max_tokens= must be MAX_TOKENS, the module's setting (section 1)"
        if body.get("system") != inputs["system"]:
            yield "system= must be SYSTEM_PROMPT, the module's setting (section 1)"
        if body.get("tools") != seen.get("tools"):
            yield "tools= must be TOOLS, all five schemas (section 1)"
        if body.get("messages") != sent:
            yield "messages= must be the list call_model was given, unchanged (section 1)"
    if len(returned) != 2 or not all(isinstance(r, dict) and r.get("type") == "Message"
                                     and r.get("text") == inputs["token"] for r in returned):
        yield "call_model must return the Message that messages.create returned (section 1)"


def observe_fresh_import(inputs, answers):
    """A fresh copy of nano/model.py imported with no ANTHROPIC_ variable set, and two calls with
    a stand-in client already in _client."""
    import importlib.util

    import nano.model

    saved_env = dict(os.environ)
    try:
        for key in [k for k in os.environ if k.startswith("ANTHROPIC_")]:
            del os.environ[key]
        spec = importlib.util.spec_from_file_location("_fresh_nano_model", nano.model.__file__)
        fresh = importlib.util.module_from_spec(spec)
        imported = attempt(spec.loader.exec_module, fresh)
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
    client, saved = StandInClient(), nano.model._client
    nano.model._client = client

    async def two():
        await nano.model.call_model([{"role": "user", "content": "one"}])
        await nano.model.call_model([{"role": "user", "content": "two"}])
        return nano.model._client is client

    try:
        kept = attempt_async(two)
    finally:
        nano.model._client = saved
    return {"imported": imported.get("raised"), "fresh_client_none": getattr(fresh, "_client", 0) is None,
            "sent": len(client.sent), "kept": kept.get("value") is True}


def judge_fresh_import(inputs, seen):
    if seen.get("imported") or seen.get("fresh_client_none") is not True:
        yield "importing nano/model.py must not build a client: build it in call_model (section 1)"
    if seen.get("sent") != 2 or seen.get("kept") is not True:
        yield "when _client already holds a client, call_model must use it and keep it (section 1)"


def observe_reuses_client(inputs, answers):
    """Three call_models to a MessagesServer, AsyncAnthropic counting the clients built: the first
    two from an empty _client, the third with a client already in it."""
    import anthropic

    import nano.model
    from nano.server import MessagesServer
    from nano.testing import reply, text

    real = anthropic.AsyncAnthropic

    class Counting(real):
        built = 0

        def __init__(self, *args, **kwargs):
            type(self).built += 1
            super().__init__(*args, **kwargs)

    saved = nano.model._client
    made = []

    async def calls():
        try:
            nano.model._client = None
            await nano.model.call_model([{"role": "user", "content": "one"}])
            c1 = nano.model._client
            made.append(c1)
            await nano.model.call_model([{"role": "user", "content": "two"}])
            c2 = nano.model._client
            made.append(c2)
            by_two = Counting.built
            ready = real()
            made.append(ready)
            nano.model._client = ready
            before = Counting.built
            await nano.model.call_model([{"role": "user", "content": inputs["three"]}])
            c3 = nano.model._client
            made.append(c3)
            return {"first_is_real": isinstance(c1, real), "second_is_first": c2 is c1, "by_two": by_two,
                    "third_is_ready": c3 is ready, "after_ready": Counting.built - before}
        finally:
            for client in {id(c): c for c in made if c is not None and c is not saved}.values():
                with contextlib.suppress(Exception):
                    await client.close()

    server = MessagesServer([reply(text("pong"))] * 3)
    with server, pointed_at(server.url), client_builder(Counting):
        try:
            result = attempt_async(calls)
        finally:
            nano.model._client = saved
    return {"requests": len(server.requests), "raised": result.get("raised"), "message": result.get("message"),
            **(result.get("value") if isinstance(result.get("value"), dict) else {})}


def judge_reuses_client(inputs, seen):
    if seen.get("raised"):
        yield f"call_model raised {at(seen, 'raised', 0)}: {seen.get('message')} (section 1)"
    if seen.get("requests") != 3:
        yield f"three calls must send three requests; the server saw {seen.get('requests')} (section 1)"
    if seen.get("first_is_real") is not True:
        yield "after the first call, _client must hold the AsyncAnthropic client it built (section 1)"
    if seen.get("second_is_first") is not True:
        yield "the second call must reuse the client in _client, not build a new one (section 1)"
    built = seen.get("by_two")
    if not isinstance(built, int) or built > 1:
        yield f"two calls built {built} clients; build one, once, and reuse it (section 1)"
    if seen.get("third_is_ready") is not True or seen.get("after_ready") != 0:
        yield "when _client already holds a client, call_model must use it (section 1)"


# ---------------------------------------------------------------------------------------------
# The unlock questions

def observe_answer(inputs, answers):
    name = inputs["name"]
    if name not in answers:
        return {"missing": True}
    value = answers[name]
    return {"value": value if type(value) in (int, str) else {"repr": repr(value)}}


def judge_answer(inputs, seen):
    value, truth, where = seen.get("value"), inputs["truth"], inputs["where"]
    if seen.get("missing"):
        yield (f"question {inputs['number']} was not answered: run your answer cell for question "
               f"{inputs['number']} first ({where}, unlock question {inputs['number']})")
    elif type(truth) is int:
        if type(value) is not int or value != truth:
            yield inputs["hint"]
    elif not isinstance(value, str) or value.strip().lower() != truth:
        yield inputs["hint"]


def question(number, truth, where, hint):
    return Behaviour(f"l05_q{number}_check", observe_answer, judge_answer,
                     given={"name": f"answer_q{number}", "number": number, "truth": truth, "where": where,
                            "hint": hint},
                     answers=(f"l05_q{number}_answer",))


# ---------------------------------------------------------------------------------------------
# agent_loop, section 2: a reply without tool requests, and the assistant turn

def draw_text_reply(rng):
    return {"number": rng.randrange(10**6), "requests": [f"Request {rng.randrange(10**6)}" for _ in range(3)]}


def observe_text_reply(inputs, answers):
    """Text-only replies (visible: one; hidden: three more, with two texts or a thinking block),
    with run_tool, confirm and call_model refusing to be reached."""
    from nano.testing import NoAsker, reply, scripted_model, text

    log, runs = [], []
    cases = [([text("Nothing to do here.")], "Say hi."),
             ([text(f"All clear, number {inputs['number']}.")], inputs["requests"][0]),
             ([text("First thought."), text("Second thought.")], inputs["requests"][1]),
             ([{"type": "thinking", "thinking": "Nothing to run.", "signature": "sig-test"}, text("Done already.")],
              inputs["requests"][2])]
    for blocks, request in cases:
        model = scripted_model([reply(*blocks)])
        start = {"role": "user", "content": request}
        messages = [start]
        result = run_loop(messages, NoAsker(), model, log, tools=Refuse("ran"), gate=Refuse("asked the gate about"),
                          call_model=Fixed(None))
        runs.append({**outcome(result, messages, model), "start": [start],
                     "first_is_start": bool(messages) and messages[0] is start})
    return {"runs": runs, "log": events(log)}


def judge_text_reply(inputs, seen):
    for kind, name in (e for e in listed(seen.get("log")) if isinstance(e, list) and len(e) == 2):
        if kind == "run":
            yield f"agent_loop ran {name}, but the reply asked for no tool (section 2)"
        elif kind == "ask":
            yield f"agent_loop asked the gate about {name}, but the reply asked for no tool (section 2)"
        else:
            yield "agent_loop called call_model by name; it must call the model it was given (section 2)"
        return
    runs = listed(seen.get("runs"))
    if len(runs) != 4:
        yield "agent_loop did not finish the text-only replies (section 2)"
        return
    for index, run in enumerate(runs):
        run = run if isinstance(run, dict) else {}
        if run.get("calls") != 1:
            yield f"a text-only reply must end the loop after one model call; it made {run.get('calls')} (section 2)"
        elif raised(run, "section 2"):
            yield raised(run, "section 2")
        elif at(run, "seen", 0) != run.get("start"):
            yield "the model must be called with the messages list (section 2)"
        elif index == 0 and listed(run.get("roles")) != ["user", "assistant"]:
            yield f"expected two entries, user then assistant; got {run.get('roles')} (section 2)"
        elif len(listed(run.get("roles"))) != 2 or run.get("first_is_start") is not True:
            yield "a text-only reply adds exactly one entry, the assistant's, and no user message after it (section 4)"
        elif at(run, "roles", 1) != "assistant":
            yield "the reply must go in as an assistant entry (section 2)"
        elif run.get("status") != "done":
            yield f"agent_loop returned {run.get('status')!r}; a finished run returns 'done' (section 4)"
        else:
            continue
        return


def draw_verbatim(rng):
    return {"ids": [f"toolu_{rng.getrandbits(40):010x}" for _ in range(3)]}


def turns(messages, replies):
    """Each assistant entry beside the reply it should hold: equal to it, and its very blocks."""
    entries = [(i, m) for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"]
    out = []
    for (index, entry), r in zip(entries, replies):
        content = entry.get("content")
        same = isinstance(content, (list, tuple)) and len(content) == len(r.content) \
            and all(a is b for a, b in zip(content, r.content))
        out.append({"index": index, "equal": equal(entry, {"role": "assistant", "content": r.content}),
                    "same": bool(same)})
    return {"count": len(entries), "turns": out}


def observe_verbatim(inputs, answers):
    """A two-text reply (visible), then three replies mixing thinking, text and tool_use blocks."""
    from nano.testing import NoAsker, reply, scripted_model, text, tool_use

    log = []
    first = reply(text("Here is my answer."), text("And a second paragraph."))
    messages = [{"role": "user", "content": "Answer in two paragraphs."}]
    result = run_loop(messages, NoAsker(), scripted_model([first]), log, tools=Canned("output of {name} for {input}"),
                      gate=Fixed(True))
    visible = {**outcome(result, messages), **turns(messages[1:2], [first])}
    ids = inputs["ids"]
    replies = [
        reply({"type": "thinking", "thinking": "I should read the file first.", "signature": f"sig-{ids[0]}"},
              text("Let me look."), tool_use(ids[0], "read_file", {"path": "app.py"})),
        reply(tool_use(ids[1], "list_files", {"path": "src"}), text("Also checking the folder."),
              tool_use(ids[2], "read_file", {"path": "src/main.py"})),
        reply(text("All read. Nothing needs changing.")),
    ]
    messages = [{"role": "user", "content": "Look around."}]
    result = run_loop(messages, NoAsker(), scripted_model(replies), log, tools=Canned("output of {name} for {input}"),
                      gate=Fixed(True))
    return {"visible": visible, "hidden": {**outcome(result, messages), **turns(messages, replies)}}


def judge_verbatim(inputs, seen):
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    first = part(visible, "turns", 0)
    if raised(visible, "section 2"):
        yield raised(visible, "section 2")
    if first.get("equal") is not True:
        yield 'the assistant entry must be exactly {"role": "assistant", "content": reply.content} (section 2)'
    if first.get("same") is not True:
        yield "the assistant entry must hold the reply's own blocks, not rebuilt copies (section 2)"
    if raised(hidden, "section 2"):
        yield raised(hidden, "section 2")
    if hidden.get("count") != 3:
        yield f"three model calls must give three assistant entries, got {hidden.get('count')} (section 2)"
    for turn in listed(hidden.get("turns")):
        turn = turn if isinstance(turn, dict) else {}
        if turn.get("equal") is not True:
            yield (f"messages[{turn.get('index')}] must be exactly the reply's content as it came: nothing "
                   "filtered, rebuilt or added (section 2)")
        elif turn.get("same") is not True:
            yield f"messages[{turn.get('index')}] must hold the reply's own blocks, thinking and tool_use included (section 2)"


# ---------------------------------------------------------------------------------------------
# agent_loop, sections 3 and 4: results, errors, the gate, one message, the list, the limit

def draw_by_id(rng):
    return {"ids": [f"toolu_{rng.getrandbits(48):012x}" for _ in range(4)],
            "paths": [f"dir_{rng.getrandbits(16):04x}/file_{n}.txt" for n in range(4)]}


def observe_by_id(inputs, answers):
    from nano.testing import NoAsker, reply, scripted_model, text, tool_use

    log = []
    model = scripted_model([reply(tool_use("toolu_check_1", "read_file", {"path": "notes.txt"})), reply(text("Read it."))])
    messages = [{"role": "user", "content": "Read notes.txt."}]
    result = run_loop(messages, NoAsker(), model, log, tools=Canned("contents of {path}"), gate=Fixed(True))
    visible = {**outcome(result, messages, model), "ran": [[e[1], wire(e[2])] for e in log if e[0] == "run"]}
    ids, paths = inputs["ids"], inputs["paths"]
    model = scripted_model([
        reply(tool_use(ids[0], "read_file", {"path": paths[0]})),
        reply(text("Two more."), tool_use(ids[1], "read_file", {"path": paths[1]}),
              tool_use(ids[2], "list_files", {"path": paths[2]})),
        reply(tool_use(ids[3], "read_file", {"path": paths[3]})),
        reply(text("That is everything.")),
    ])
    messages = [{"role": "user", "content": "Read them all."}]
    result = run_loop(messages, NoAsker(), model, log, tools=Canned("contents of {path}"), gate=Fixed(True))
    return {"visible": visible, "hidden": outcome(result, messages, model)}


def judge_by_id(inputs, seen):
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    if raised(visible, "section 3"):
        yield raised(visible, "section 3")
    if visible.get("ran") != [["read_file", {"path": "notes.txt"}]]:
        yield f"run_tool must run the requested tool once; it ran {visible.get('ran')} (section 3)"
    third = at(visible, "messages", 2)
    if third != {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_check_1",
                                               "content": "contents of notes.txt", "is_error": False}]}:
        yield ("messages[2] must be one user message holding the tool_result for toolu_check_1; "
               f"got {third!r} (sections 3 and 4)")
    if raised(hidden, "section 3"):
        yield raised(hidden, "section 3")
    results = user_results(listed(hidden.get("messages")))
    got = [r.get("tool_use_id") if isinstance(r, dict) else None for r in results]
    if got != inputs["ids"]:
        yield (f"each result's tool_use_id must be its tool_use block's id, in order; expected {inputs['ids']}, "
               f"got {got} (section 3)")
    for r, path in zip(results, inputs["paths"]):
        r = r if isinstance(r, dict) else {}
        if r.get("type") != "tool_result":
            yield f"each result must be a tool_result block, got {r!r} (section 3)"
        elif r.get("content") != f"contents of {path}":
            yield "a result must carry what run_tool returned for it (section 3)"
        elif r.get("is_error", False) is not False:
            yield "a tool that returned normally is not an error (section 3)"
    if at(hidden, "seen", 1, -1, "content", 0, "tool_use_id") != inputs["ids"][0]:
        yield "the model's next call must see the result (section 4)"
    if hidden.get("status") != "done":
        yield f"agent_loop returned {hidden.get('status')!r}, expected 'done' (section 4)"


def draw_tool_error(rng):
    n = rng.randrange(10**6)
    return {"n": n, "errors": {
        f"a_{n}.py": ["ValueError", f"old_string occurs 2 times in a_{n}.py: include more of the surrounding lines"],
        f"slow_{n}": ["TimeoutError", f"Command timed out after 30 seconds: sleep {n}"],
        f"odd_{n}": ["RuntimeError", f"something unusual happened, code {n}"]}}


def observe_tool_error(inputs, answers):
    from nano.testing import NoAsker, reply, scripted_model, text, tool_use

    log = []
    model = scripted_model([reply(tool_use("toolu_err_1", "read_file", {"path": "missing.txt"})),
                            reply(text("That file is missing."))])
    messages = [{"role": "user", "content": "Read missing.txt."}]
    visible = outcome(run_loop(messages, NoAsker(), model, log, tools=Canned("missing"), gate=Fixed(True)),
                      messages, model)
    n = inputs["n"]
    model = scripted_model([
        reply(tool_use("toolu_m1", "read_file", {"path": f"a_{n}.py"}), tool_use("toolu_m2", "read_file", {"path": "ok.txt"}),
              tool_use("toolu_m3", "list_files", {"path": f"slow_{n}"})),
        reply(tool_use("toolu_m4", "read_file", {"path": f"odd_{n}"})),
        reply(text("I have seen the errors.")),
    ])
    messages = [{"role": "user", "content": "Try these."}]
    hidden = outcome(run_loop(messages, NoAsker(), model, log, tools=Canned("fine: {path}", inputs["errors"]),
                              gate=Fixed(True)), messages, model)
    return {"visible": visible, "hidden": hidden}


def judge_tool_error(inputs, seen):
    visible, hidden, n = part(seen, "visible"), part(seen, "hidden"), inputs["n"]
    result = at(visible, "messages", 2, "content", 0)
    result = result if isinstance(result, dict) else {}
    if raised(visible, "section 3"):
        yield raised(visible, "section 3")
    if result.get("is_error") is not True:
        yield "a tool that raised must give a result with is_error: True (section 3)"
    if "missing.txt" not in text_of(result.get("content")):
        yield "the error result must carry the exception's message (section 3)"
    if visible.get("calls") != 2 or visible.get("status") != "done":
        yield "after an error result the loop must go on and call the model again (section 3)"
    if raised(hidden, "section 3"):
        yield raised(hidden, "section 3")
    results = user_results(listed(hidden.get("messages")))
    if len(results) != 4:
        yield f"four requests need four results, even when some tools fail; got {len(results)} (section 3)"
        return
    results = [r if isinstance(r, dict) else {} for r in results]
    for r, key in ((results[0], f"a_{n}.py"), (results[2], f"slow_{n}"), (results[3], f"odd_{n}")):
        message = inputs["errors"][key][1]
        if r.get("is_error") is not True:
            yield "a tool that raised must give is_error: True (section 3)"
        elif message not in text_of(r.get("content")):
            yield (f"the error result must carry the exception's own message, {message!r}; "
                   f"got {r.get('content')!r} (section 3)")
    if results[1].get("content") != "fine: ok.txt" or results[1].get("is_error", False) is not False:
        yield "a tool that returned normally in the same turn keeps its result, is_error False (section 3)"
    if hidden.get("calls") != 3 or hidden.get("status") != "done":
        yield "after error results the loop must go on until the model stops (section 3)"
    if inputs["errors"][f"odd_{n}"][1] not in text_of(at(hidden, "seen", -1, -1, "content", -1, "content")):
        yield "the model must see the error on its next call (section 3)"


def draw_declined(rng):
    return {"tags": [f"{rng.getrandbits(24):06x}" for _ in range(3)], "ids": [f"toolu_{rng.getrandbits(40):010x}" for _ in range(3)]}


def observe_declined(inputs, answers):
    """A declined bash (visible); each gated tool declined, with the loop's own asker; a mixed
    run whose gate says no, yes, yes."""
    from nano.testing import NoAsker, reply, scripted_model, text, tool_use

    log = []
    model = scripted_model([reply(tool_use("toolu_no_1", "bash", {"command": "rm -rf build"})),
                            reply(text("All right, I won't."))])
    messages = [{"role": "user", "content": "Clean up."}]
    result = run_loop(messages, NoAsker(), model, log, tools=Canned("ran {name}"), gate=Answers([False]))
    visible = {**outcome(result, messages, model), "events": events(log)}
    tags, ids, each = inputs["tags"], inputs["ids"], []
    asker = NoAsker()
    for (name, tool_input), tool_id in zip(
            (("write_file", {"path": f"new_{tags[0]}.py", "content": "x = 1\n"}),
             ("edit_file", {"path": "app.py", "old_string": "a", "new_string": f"b{tags[1]}"}),
             ("bash", {"command": f"touch sentinel_{tags[2]}"})), ids):
        log = []
        messages = [{"role": "user", "content": f"Use {name}."}]
        result = run_loop(messages, asker, scripted_model([reply(tool_use(tool_id, name, tool_input)), reply(text("OK."))]),
                          log, tools=Canned("ran {name}"), gate=Fixed(False))
        each.append({**outcome(result, messages), "name": name, "input": tool_input, "events": events(log),
                     "asked": [[e[3] is asker, e[1], wire(e[2])] for e in log if e[0] == "ask"]})
    log = []
    model = scripted_model([
        reply(tool_use("toolu_w", "write_file", {"path": "x.txt", "content": "x"}),
              tool_use("toolu_b", "bash", {"command": "echo yes"})),
        reply(tool_use("toolu_e", "edit_file", {"path": "x.txt", "old_string": "x", "new_string": "y"})),
        reply(text("Done.")),
    ])
    messages = [{"role": "user", "content": "Go."}]
    result = run_loop(messages, NoAsker(), model, log, tools=Canned("ran {name}"), gate=Answers([False, True, True]))
    return {"visible": visible, "each": each, "mixed": {**outcome(result, messages), "events": events(log)}}


def declined(result):
    return isinstance(result, dict) and "declined" in text_of(result.get("content")).lower()


def judge_declined(inputs, seen):
    visible = part(seen, "visible")
    if raised(visible, "section 3"):
        yield raised(visible, "section 3")
    if visible.get("events") != [["ask", "bash"]]:
        yield f"a declined bash must be asked about once and never run; saw {visible.get('events')} (section 3)"
    result = at(visible, "messages", 2, "content", 0)
    if not declined(result):
        yield "a declined call's result must say it was declined (section 3)"
    elif result.get("is_error"):
        yield "a declined call is not an error: is_error must be False (section 3)"
    if visible.get("calls") != 2:
        yield "after a denial the loop goes on and tells the model (section 3)"
    each = listed(seen.get("each"))
    if len(each) != 3:
        yield "agent_loop did not finish the declined requests (section 3)"
        return
    for run in each:
        run = run if isinstance(run, dict) else {}
        name = run.get("name")
        if ["run", name] in listed(run.get("events")):
            yield f"a declined {name} must never run (section 3)"
        if run.get("asked") != [[True, name, run.get("input")]]:
            yield f"confirm must be called once, as confirm(ask, block.name, block.input); got {run.get('asked')} (section 3)"
        result = at(run, "messages", 2, "content", 0)
        if not declined(result):
            yield "a declined result must say 'declined' (section 3)"
        elif result.get("is_error", False) is not False:
            yield "a denial is not an error: is_error must be False (section 3)"
    mixed = part(seen, "mixed")
    found = listed(mixed.get("events"))
    if raised(mixed, "section 3"):
        yield raised(mixed, "section 3")
    if ["run", "write_file"] in found:
        yield "the declined write_file must never run (section 3)"
    for name in ("bash", "edit_file"):
        if ["run", name] not in found:
            yield f"an approved {name} must run (section 3)"
        elif ["ask", name] not in found or found.index(["ask", name]) > found.index(["run", name]):
            yield f"the gate must be asked before {name} runs, never after (section 3)"
    results = user_results(listed(mixed.get("messages")))
    if len(results) != 3:
        yield f"one result per request: three requests, {len(results)} results (section 3)"
        return
    results = [r if isinstance(r, dict) else {} for r in results]
    if not declined(results[0]) or results[0].get("is_error"):
        yield "the declined write_file gets a 'declined' result, not an error (section 3)"
    if results[1].get("content") != "ran bash" or results[1].get("is_error"):
        yield "the approved bash gets run_tool's result (section 3)"
    if results[2].get("content") != "ran edit_file":
        yield "the approved edit_file gets run_tool's result (section 3)"


def observe_ungated(inputs, answers):
    from nano.testing import NoAsker, reply, scripted_model, text, tool_use

    log, asker = [], NoAsker()
    model = scripted_model([reply(tool_use("toolu_u1", "list_files", {"path": "."})),
                            reply(tool_use("toolu_u2", "read_file", {"path": "a.txt"})), reply(text("Seen it."))])
    messages = [{"role": "user", "content": "Look."}]
    result = run_loop(messages, asker, model, log, tools=Canned("output of {name}"), gate=Fixed(True))
    visible = {**outcome(result, messages), "asked": [e[1] for e in log if e[0] == "ask"], "prompts": len(asker.prompts)}
    log, asker = [], NoAsker()
    model = scripted_model([
        reply(tool_use("toolu_g1", "read_file", {"path": "a.txt"}), tool_use("toolu_g2", "bash", {"command": "ls"}),
              tool_use("toolu_g3", "list_files", {"path": "."}), tool_use("toolu_g4", "search_web", {"query": "x"})),
        reply(text("Done.")),
    ])
    messages = [{"role": "user", "content": "Mix."}]
    result = run_loop(messages, asker, model, log, tools=Canned("output of {name}"), gate=Fixed(True))
    hidden = {**outcome(result, messages), "asked": [e[1] for e in log if e[0] == "ask"], "prompts": len(asker.prompts)}
    return {"visible": visible, "hidden": hidden}


def judge_ungated(inputs, seen):
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    if visible.get("asked") != [] or visible.get("prompts") != 0:
        yield (f"read_file and list_files are not gated: the gate must not be consulted (it was asked about "
               f"{visible.get('asked')}) (section 3)")
    if hidden.get("asked") != ["bash"]:
        yield f"only the gated tool (bash) may go through the gate; it was asked about {hidden.get('asked')} (section 3)"
    if hidden.get("prompts") != 0:
        yield "agent_loop must go through confirm, never ask the asker directly (section 3)"
    results = user_results(listed(hidden.get("messages")))
    if len(results) != 4 or at(results, 3, "content") != "output of search_web":
        yield "a tool name that is not in GATED is not gated: it runs without asking (section 3)"


def draw_tag(rng):
    return {"tag": f"{rng.getrandbits(24):06x}"}


def observe_one_message(inputs, answers):
    from nano.testing import NoAsker, reply, scripted_model, text, tool_use

    log = []
    model = scripted_model([reply(tool_use("toolu_p1", "read_file", {"path": "a.txt"}),
                                  tool_use("toolu_p2", "read_file", {"path": "b.txt"})), reply(text("Both read."))])
    messages = [{"role": "user", "content": "Read a.txt and b.txt."}]
    visible = outcome(run_loop(messages, NoAsker(), model, log, tools=Canned("text of {path}"), gate=Fixed(True)), messages)
    tag = inputs["tag"]
    model = scripted_model([
        reply(text("Three things."), tool_use("toolu_q1", "read_file", {"path": f"one_{tag}.txt"}),
              tool_use("toolu_q2", "bash", {"command": f"make {tag}"}), tool_use("toolu_q3", "list_files", {"path": tag})),
        reply(tool_use("toolu_q4", "read_file", {"path": f"c_{tag}.txt"}), tool_use("toolu_q5", "read_file", {"path": f"d_{tag}.txt"})),
        reply(text("Finished.")),
    ])
    messages = [{"role": "user", "content": "Do three things."}]
    hidden = outcome(run_loop(messages, NoAsker(), model, log, tools=Canned("various"), gate=Fixed(True)), messages, model)
    hidden["seen"] = [len(s) if isinstance(s, list) else None for s in hidden["seen"]]
    return {"visible": visible, "hidden": hidden}


def contents(message):
    return [at(r, "content") for r in listed(at(message, "content"))]


def judge_one_message(inputs, seen):
    visible, hidden, tag = part(seen, "visible"), part(seen, "hidden"), inputs["tag"]
    if raised(visible, "section 4"):
        yield raised(visible, "section 4")
    if visible.get("roles") != ["user", "assistant", "user", "assistant"]:
        yield f"two results of one turn go back in ONE user message; roles were {visible.get('roles')} (section 4)"
    elif contents(at(visible, "messages", 2)) != ["text of a.txt", "text of b.txt"]:
        yield "the user message must hold both results, in the order of the requests (section 4)"
    if raised(hidden, "section 4"):
        yield raised(hidden, "section 4")
    if hidden.get("roles") != ["user", "assistant"] * 3:
        yield f"each turn's results go back in one user message; roles were {hidden.get('roles')} (section 4)"
        return
    first = [c if isinstance(c, str) else json.dumps(c) for c in contents(at(hidden, "messages", 2))]
    if first != [f"text of one_{tag}.txt", f"ran make {tag}", f"text of {tag}"]:
        yield f"one user message must hold all three results of the first turn, in order; got {first} (section 4)"
    second = contents(at(hidden, "messages", 4))
    if second != [f"text of c_{tag}.txt", f"text of d_{tag}.txt"]:
        yield f"the second turn's two results, in order; got {second} (section 4)"
    if hidden.get("seen") != [1, 3, 5]:
        yield "the model must be called once after each single results message (section 4)"
    if hidden.get("status") != "done":
        yield f"agent_loop returned {hidden.get('status')!r}, expected 'done' (section 4)"


def observe_callers_list(inputs, answers):
    from nano.testing import NoAsker, reply, scripted_model, text, tool_use

    log = []
    history = [{"role": "user", "content": "What files are here?"}]
    same_list = history
    result = run_loop(history, NoAsker(), scripted_model([reply(tool_use("toolu_l1", "list_files", {"path": "."})),
                                                          reply(text("Just a.txt."))]),
                      log, tools=Fixed("a.txt"), gate=Fixed(True))
    visible = {"raised": result.get("raised", [None])[0], "message": result.get("message"), "length": len(same_list)}
    earlier = [{"role": "user", "content": "Hello."},
               {"role": "assistant", "content": reply(text("Hi! What shall we do?")).content},
               {"role": "user", "content": "List the files, then read one."}]
    history = list(earlier)
    model = scripted_model([reply(tool_use("toolu_l2", "list_files", {"path": "."})),
                            reply(tool_use("toolu_l3", "read_file", {"path": "a.txt"})), reply(text("a.txt says a."))])
    result = run_loop(history, NoAsker(), model, log, tools=Fixed("a.txt"), gate=Fixed(True))
    hidden = {"raised": result.get("raised", [None])[0], "message": result.get("message"), "length": len(history),
              "kept": all(a is b for a, b in zip(history[:3], earlier)) and len(history) >= 3,
              "seen": [len(s) for s in model.seen]}
    return {"visible": visible, "hidden": hidden}


def judge_callers_list(inputs, seen):
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    if raised(visible, "section 4"):
        yield raised(visible, "section 4")
    if visible.get("length") != 4:
        yield (f"agent_loop must append to the caller's list; the caller's list has {visible.get('length')} "
               "entries, expected 4 (section 4)")
    if raised(hidden, "section 4"):
        yield raised(hidden, "section 4")
    if hidden.get("length") != 8:
        yield f"the caller's list must grow in place, from 3 to 8 entries; it has {hidden.get('length')} (section 4)"
    if hidden.get("kept") is not True:
        yield "the entries already in the list must stay as they were (section 4)"
    if hidden.get("seen") != [3, 5, 7]:
        yield "the model must see the same list growing, call after call (section 4)"


def draw_turn_limit(rng):
    return {"limits": [[2, 1], [1, 1], [rng.choice((3, 4, 5)), 2], [rng.choice((7, 8, 9)), 1]],
            "finishing": rng.choice((2, 3, 4))}


def asks_forever(per_call):
    """A model that asks for `per_call` listings on every call, scripted 60 calls deep (past that,
    it raises: a loop without a limit stops there)."""
    from nano.testing import reply, scripted_model, tool_use

    return scripted_model([reply(*[tool_use(f"toolu_forever_{call}_{n}", "list_files", {"path": "."})
                                   for n in range(per_call)]) for call in range(1, 61)])


def observe_turn_limit(inputs, answers):
    from nano.testing import NoAsker, reply, scripted_model, text, tool_use

    log = []

    def limited(model, **limit):
        messages = [{"role": "user", "content": "List."}]
        result = run_loop(messages, NoAsker(), model, log, tools=Fixed("a.txt"), gate=Fixed(True), **limit)
        return {"status": result.get("value") if isinstance(result.get("value"), str) else None,
                "raised": result.get("raised", [None])[0], "message": result.get("message"), "calls": model.calls}

    runs = [{**limited(asks_forever(per_call), max_turns=limit), "limit": limit} for limit, per_call in inputs["limits"]]
    limit = inputs["finishing"]
    model = scripted_model([reply(tool_use(f"toolu_fin_{i}", "list_files", {"path": "."})) for i in range(limit - 1)]
                           + [reply(text("Done."))])
    return {"runs": runs, "default": limited(asks_forever(1)), "finishing": limited(model, max_turns=limit)}


def judge_turn_limit(inputs, seen):
    runs = listed(seen.get("runs"))
    for index, (limit, per_call) in enumerate(inputs["limits"]):
        run = part(runs, index)
        if run.get("calls") != limit:
            yield (f"with max_turns={limit} the model must be called exactly {limit} times (model calls, not tool "
                   f"calls); it was called {run.get('calls')} times (section 4)")
        elif run.get("status") != "max_turns":
            yield f"with max_turns={limit} the run must return 'max_turns', not {run.get('status')!r} (section 4)"
    default = part(seen, "default")
    if default.get("calls") != 25 or default.get("status") != "max_turns":
        yield f"by default the limit is 25 model calls (MAX_TURNS); the model was called {default.get('calls')} times (section 4)"
    finishing, limit = part(seen, "finishing"), inputs["finishing"]
    if finishing.get("calls") != limit or finishing.get("status") != "done":
        yield (f"a model that stops on call {limit} of max_turns={limit} has finished: 'done', "
               f"not {finishing.get('status')!r} (section 4)")


# ---------------------------------------------------------------------------------------------
# Section 5: the Celsius trace, as recorded and with ids and texts the student has not seen

def draw_celsius(rng):
    return {"new": {"toolu_01A": f"toolu_{rng.getrandbits(48):012x}", "toolu_01B": f"toolu_{rng.getrandbits(48):012x}",
                    "Fixed.": f"Fixed ({rng.getrandbits(24):06x})."}}


def renamed(value, new):
    text = json.dumps(value)
    for old, fresh in new.items():
        text = text.replace(old, fresh)
    return json.loads(text)


def observe_celsius(inputs, answers):
    from anthropic.types import Message

    from nano.testing import NoAsker, scripted_model
    from nano.trace import load_trace

    trace = load_trace()
    outputs = {"read_file": trace.entries[2]["content"][0]["content"], "edit_file": trace.entries[4]["content"][0]["content"]}
    log = []
    messages = [{"role": "user", "content": trace.request}]
    answers_given = [a.strip().lower() in ("y", "yes") for a in trace.answers]
    visible = outcome(run_loop(messages, NoAsker(), scripted_model(trace.replies), log, tools=FromTable(outputs),
                               gate=Answers(answers_given)), messages)
    replies = [Message.model_validate(renamed(r.model_dump(mode="json"), inputs["new"])) for r in trace.replies]
    model = scripted_model(replies)
    messages = [{"role": "user", "content": trace.request}]
    hidden = outcome(run_loop(messages, NoAsker(), model, log, tools=FromTable(outputs), gate=Answers([True])),
                     messages, model)
    return {"visible": visible, "hidden": hidden, "entries": trace.entries,
            "expected": renamed(trace.entries, inputs["new"])}


def first_difference(got, expected):
    """Where two lists of entries first differ, in words."""
    got, expected = listed(got), listed(expected)
    for i in range(max(len(got), len(expected))):
        mine, theirs = at(got, i), at(expected, i)
        if mine != theirs:
            return f"messages[{i}] is {json.dumps(mine)[:300]}, expected {json.dumps(theirs)[:300]}"
    return "they are the same"


def judge_celsius(inputs, seen):
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    entries, expected = seen.get("entries"), seen.get("expected")
    if raised(visible, "section 5"):
        yield raised(visible, "section 5")
    if visible.get("messages") != entries:
        yield f"your loop's entries differ from the Celsius trace (section 5): {first_difference(visible.get('messages'), entries)}"
    if visible.get("status") != "done":
        yield f"agent_loop returned {visible.get('status')!r} after the trace, expected 'done' (section 5)"
    if hidden.get("messages") != expected:
        yield ("on a second trace with new ids and texts, the entries differ (section 5): "
               + first_difference(hidden.get("messages"), expected))
    elif isinstance(expected, list) and hidden.get("seen") != [expected[:1], expected[:3], expected[:5]]:
        yield "call k of the model must see exactly the entries before it: 1, then 3, then 5 (sections 2 and 4)"


BEHAVIOURS = [
    # First in the check's process: importing the SDK alone can take a loaded machine 15 s.
    Behaviour("l05_call_model_sends_five_fields", observe_stand_in_client, judge_stand_in_client, timeout=60),
    Behaviour("l05_call_model_sends_five_fields", observe_five_fields, judge_five_fields, draw_request),
    Behaviour("l05_call_model_reuses_client", observe_fresh_import, judge_fresh_import),
    Behaviour("l05_call_model_reuses_client", observe_reuses_client, judge_reuses_client, draw_request),
    question(1, "c", "section 1",
             "unlock question 1: the SDK reads the key when the client is built, and the installed one does not "
             "complain until the first request (section 1, the cell with early and late)"),
    Behaviour("l05_text_reply_ends", observe_text_reply, judge_text_reply, draw_text_reply),
    Behaviour("l05_assistant_turn_verbatim", observe_verbatim, judge_verbatim, draw_verbatim),
    question(2, "b", "section 2",
             "unlock question 2: a tool_result must answer a tool_use in the assistant turn just before it; "
             "try the filtered list with check_messages (section 2)"),
    question(3, "b", "section 3",
             "unlock question 3: the check looks for the file the command would create, so the command must never "
             "start before a yes (section 3, 'A denial is not an error')"),
    question(4, "c", "section 3",
             "unlock question 4: run_tool does not catch (lecture 02), so without a try/except the exception "
             "leaves agent_loop and the check never reaches its asserts (section 3)"),
    question(5, 6, "section 4",
             "unlock question 5: each model call adds one assistant entry, and each turn with tool requests adds "
             "ONE user entry, however many results it holds (section 4)"),
    question(6, "b", "section 4",
             "unlock question 6: assigning to a parameter rebinds only the local name; see the add_by_rebinding "
             "cell (section 4)"),
    Behaviour("l05_results_matched_by_id", observe_by_id, judge_by_id, draw_by_id),
    Behaviour("l05_tool_error_becomes_result", observe_tool_error, judge_tool_error, draw_tool_error),
    Behaviour("l05_declined_tool_never_runs", observe_declined, judge_declined, draw_declined),
    Behaviour("l05_ungated_tools_skip_gate", observe_ungated, judge_ungated),
    Behaviour("l05_one_user_message_for_all_results", observe_one_message, judge_one_message, draw_tag),
    Behaviour("l05_callers_list_mutated", observe_callers_list, judge_callers_list),
    Behaviour("l05_turn_limit", observe_turn_limit, judge_turn_limit, draw_turn_limit),
    Behaviour("l05_celsius_trace_matches", observe_celsius, judge_celsius, draw_celsius),
]
