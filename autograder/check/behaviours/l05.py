"""Lecture 05's graded behaviours: call_model, agent_loop and the six unlock answers.

call_model talks through the real anthropic SDK, in the subject, to nano/server.py's
MessagesServer running here in the driver: what it sent is what the server received. A client
takes its key from the environment when it is built, so the key each request carried says which
client sent it: the key is set only after a fresh import of nano/model.py (a client built at
import has none), changed between two calls (a client built again sends the new one), and a
client of the grader's with a key of its own is put in _client (a call_model that ignores it
sends another). agent_loop runs against a scripted model and asker whose calls are answered
here, with run_tool, confirm and call_model standing in as doubles answered here too (the
subject swaps the function objects' code, so a loop that imports them inside the function or
calls `nano.tools.run_tool(...)` meets the same doubles, and a slip in lectures 02-04 costs
nothing here). What each double was asked is logged here; the caller's list is one the subject
holds by name, read back after the run as the API would see it.
"""

import json

from checks import doubles
from autograder.check.behaviour import Behaviour
from checks.doubles import Raise

FIVE = ["max_tokens", "messages", "model", "system", "tools"]
KEY = "sk-test-not-a-real-key"  # the key call_model's client must read from the environment
SECOND_KEY = "sk-test-set-after-the-first-call"  # a client built after the first call would send it
READY_KEY = "sk-test-ready-client"  # the key of a client put in _client before call_model runs
ANTHROPIC = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_LOG",
             "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_BETA", "ANTHROPIC_MODEL")


# ---------------------------------------------------------------------------------------------
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


def first(value):
    """The first item of a list, or None."""
    return value[0] if isinstance(value, list) and value else None


def equal(a, b):
    try:
        return bool(a == b)
    except Exception:
        return False


def raised(run, section):
    """The sentence for a run that raised, or None."""
    if isinstance(run, dict) and run.get("raised"):
        return f"agent_loop raised {run.get('raised')}: {run.get('message')} ({section})"
    return None


def text_of(content):
    if isinstance(content, str):
        return content
    try:
        return json.dumps(content) if content is not None else ""
    except (TypeError, ValueError):
        return ""


def events(log):
    return [[entry[0], entry[1]] for entry in log]


def user_results(messages):
    """Every block of every user message after the first (plain data), as the tests gather the
    tool results."""
    return [b for m in listed(messages)[1:] if isinstance(m, dict) and m.get("role") == "user"
            and isinstance(m.get("content"), list) for b in m["content"]]


# ---------------------------------------------------------------------------------------------
# Doubles, answered here. Each handler receives what the student's code sent (any JSON) and
# logs it; its `respond` says what the double gives back. Nothing here may crash on odd input:
# a builtin exception is raised in the subject, as a real function would raise it.

def arguments(args, kwargs, names):
    """The values of `names`, passed by position or by keyword (None where missing)."""
    values = list(args[:len(names)]) + [None] * max(0, len(names) - len(args))
    for index, name in enumerate(names):
        if name in kwargs:
            values[index] = kwargs[name]
    return values


def tool_handler(log, respond):
    def run_tool(*args, **kwargs):
        name, input = arguments(args, kwargs, ("name", "input"))
        log.append(["run", name, input])
        return respond(name, input)
    return run_tool


def gate_handler(subject, log, respond, asker):
    """confirm's double: logs ["ask", name, input, whether it was given agent_loop's asker]."""
    def confirm(*args, **kwargs):
        refs, kwrefs = subject.refs, subject.kwrefs
        ask, name, input = arguments(args, kwargs, ("ask", "name", "input"))
        if "ask" in kwargs:
            same = isinstance(kwrefs, dict) and kwrefs.get("ask") == asker.number
        else:
            same = isinstance(refs, list) and bool(refs) and refs[0] == asker.number
        log.append(["ask", name, input, same])
        return respond(name)
    return confirm


def model_handler(log):
    def call_model(*args, **kwargs):
        log.append(["call_model", None])
        raise Raise("AssertionError", "agent_loop called call_model by name")
    return call_model


class Fixed:
    """What the double returns to each call: a fixed answer."""

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

    def __call__(self, name, *args):
        raise Raise("AssertionError", f"agent_loop {self.what} {str(name)[:100]}, but the reply asked for no tool")


ERRORS = ("FileNotFoundError", "ValueError", "TimeoutError", "RuntimeError")


class Canned:
    """A tool that answers from a template, filled with the request's name, input and its path."""

    def __init__(self, template, raises=None):
        self.template, self.raises = template, dict(raises or {})

    def __call__(self, name, input):
        fields = input if isinstance(input, dict) else {}
        key = fields.get("path")
        if isinstance(key, str) and key in self.raises:
            kind, message = self.raises[key]
            raise Raise(kind if kind in ERRORS else "RuntimeError", message)
        if self.template == "missing":
            raise Raise("FileNotFoundError", f"No such file: {key}")
        if self.template == "various":
            return f"ran {fields.get('command')}" if name == "bash" else f"text of {key}"
        return self.template.format(name=name, input=input, path=key)


class FromTable:
    """A tool whose answer is looked up by the tool's name."""

    def __init__(self, table):
        self.table = dict(table)

    def __call__(self, name, input):
        if not isinstance(name, str) or name not in self.table:
            raise Raise("ValueError", f"Unknown tool {str(name)[:100]!r}")
        return self.table[name]


def run_loop(subject, log, start, replies, tools, gate, asker=None, call_model=False, **limit):
    """agent_loop(messages, ask, model, **limit) in the subject, with `start` as the caller's
    list, the scripted `replies` as the model, run_tool and confirm (and call_model, if asked)
    standing in: what it returned, the caller's list read back after it, what the model was sent.
    `asker`: (recorder, ref), else an asker that must not be asked."""
    recorder, model = doubles.model(subject, replies)
    asker_recorder, ask = asker if asker is not None else doubles.asker(subject, refuse=True)
    subject.read("nano.loop.agent_loop")  # imported first, so that `also` finds its names
    subject.stand("nano.tools.run_tool", tool_handler(log, tools), also=["nano.loop"])
    subject.stand("nano.gate.confirm", gate_handler(subject, log, gate, ask), also=["nano.loop"])
    if call_model:
        subject.stand("nano.model.call_model", model_handler(log), also=["nano.loop"])
    messages = subject.make(start)
    result = subject.call("nano.loop.agent_loop", messages, ask, model, **limit)
    after = subject.read(messages)
    return outcome(result, after, recorder), asker_recorder


def outcome(result, after, recorder):
    """What one run of agent_loop left: how it ended, the caller's list (as JSON), the model's calls."""
    messages = after.get("value") if isinstance(after, dict) and "raised" not in after else None
    return {"status": result.get("value") if isinstance(result.get("value"), str) else None,
            "raised": first(result.get("raised")), "message": result.get("message"),
            "roles": [m.get("role") if isinstance(m, dict) else None for m in listed(messages)],
            "messages": messages, "calls": recorder.calls, "seen": recorder.seen,
            "replies": [r.get("content") for r in recorder.replies]}


def testing():
    return doubles.given("testing")


# ---------------------------------------------------------------------------------------------
# call_model: the real SDK in the subject, the Messages API server here

def pointed_at(subject, url):
    """Point the subject's SDK at `url` with the test key, until the behaviour ends."""
    subject.environ(**{**{name: None for name in ANTHROPIC}, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": KEY,
                       "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"})


def key_of(headers):
    """The API key a request carried, in x-api-key or as a bearer token (as the server reads it)."""
    key = headers.get("x-api-key")
    bearer = headers.get("authorization", "")
    if key is None and bearer.lower().startswith("bearer "):
        key = bearer[len("bearer "):].strip()
    return key


def received(server):
    """Each request the server got: [path, parsed body, the key it carried]."""
    return [[r.path, r.body, key_of(r.headers)] for r in server.requests]


def draw_request(rng):
    return {"token": f"pong-{rng.randrange(10**8)}", "model": f"claude-test-{rng.randrange(10**6)}",
            "max_tokens": rng.randrange(1000, 9000),
            "system": f"You are a test system prompt number {rng.randrange(10**6)}.",
            "ping": f"ping {rng.randrange(10**6)}", "three": f"three {rng.randrange(10**6)}"}


def drive_one_call(subject, inputs):
    """One call_model, from an empty _client, through the SDK to the server: the request that
    arrived, and what call_model returned."""
    t = testing()
    answer = t.reply(t.text("the reply"))
    with doubles.given("server").MessagesServer([answer]) as server:
        pointed_at(subject, subject.serve(server))
        subject.set("nano.model._client", None)
        got = subject.call("nano.model.call_model", [{"role": "user", "content": "hi"}])
        return {"requests": received(server), "got": got, "id": answer.id}


def judge_one_call(inputs, seen):
    requests, got = listed(seen.get("requests")), part(seen, "got")
    if len(requests) != 1:
        if got.get("raised"):
            yield f"call_model raised {at(got, 'raised', 0)}: {got.get('message')} (section 1)"
        yield f"one call_model must make one messages.create call, it made {len(requests)} (section 1)"
        return
    body = at(requests, 0, 1)
    fields = sorted(str(k) for k in body) if isinstance(body, dict) else None
    if fields != FIVE:
        yield f"call_model must send exactly model, max_tokens, system, tools and messages; it sent {fields} (section 1)"
    if got.get("type") != "Message" or at(got, "value", "id") != seen.get("id") \
            or at(got, "value", "content", 0, "text") != "the reply":
        yield "call_model must return what messages.create returned (section 1)"


def drive_five_fields(subject, inputs):
    """Two call_models through the real SDK to the server, with MODEL, MAX_TOKENS and
    SYSTEM_PROMPT set to the inputs: the requests that arrived, and what call_model returned."""
    t = testing()
    first_messages = [{"role": "user", "content": inputs["ping"]}]
    assistant = t.reply(t.text("Reading."), t.tool_use("toolu_t1", "read_file", {"path": "a.txt"}))
    second_messages = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": assistant.model_dump(mode="json", exclude_none=True)["content"]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_t1", "content": "hi", "is_error": False}]},
    ]
    with doubles.given("server").MessagesServer([t.reply(t.text(inputs["token"])), t.reply(t.text(inputs["token"]))]) as server:
        pointed_at(subject, subject.serve(server))
        subject.set("nano.model._client", None)
        subject.set("nano.model.MODEL", inputs["model"])
        subject.set("nano.model.MAX_TOKENS", inputs["max_tokens"])
        subject.set("nano.model.SYSTEM_PROMPT", inputs["system"])
        returned = [subject.call("nano.model.call_model", messages) for messages in (first_messages, second_messages)]
        tools = subject.read("nano.model.TOOLS")
        return {"requests": received(server), "returned": returned,
                "tools": tools.get("value") if "raised" not in tools else {"unreadable": first(tools.get("raised"))},
                "sent": [first_messages, second_messages]}


def judge_five_fields(inputs, seen):
    requests, returned = listed(seen.get("requests")), listed(seen.get("returned"))
    for r in returned:
        if isinstance(r, dict) and r.get("raised"):
            yield f"call_model raised {at(r, 'raised', 0)}: {r.get('message')} (section 1)"
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
        if sorted(str(k) for k in body) != FIVE:
            yield f"call_model must send exactly model, max_tokens, system, tools and messages; it sent {sorted(str(k) for k in body)} (section 1)"
        if body.get("model") != inputs["model"]:
            yield "model= must be MODEL, the module's setting, not a copy of its value (section 1)"
        if not equal(body.get("max_tokens"), inputs["max_tokens"]) or type(body.get("max_tokens")) is not int:
            yield "max_tokens= must be MAX_TOKENS, the module's setting (section 1)"
        if body.get("system") != inputs["system"]:
            yield "system= must be SYSTEM_PROMPT, the module's setting (section 1)"
        if not equal(body.get("tools"), seen.get("tools")):
            yield "tools= must be TOOLS, all five schemas (section 1)"
        if not equal(body.get("messages"), sent):
            yield "messages= must be the list call_model was given, unchanged (section 1)"
    if len(returned) != 2 or not all(isinstance(r, dict) and r.get("type") == "Message"
                                     and at(r, "value", "content", 0, "text") == inputs["token"] for r in returned):
        yield "call_model must return the Message that messages.create returned (section 1)"


def ready_client(subject, url):
    """An AsyncAnthropic client built in the subject, with a key of its own: its Ref, or None."""
    built = subject.call("anthropic.AsyncAnthropic", api_key=READY_KEY, base_url=url, keep=True)
    number = built.get("ref")
    return doubles.Ref(number) if isinstance(number, int) and not isinstance(number, bool) else None


def drive_fresh_import(subject, inputs):
    """A fresh copy of nano/model.py imported with no ANTHROPIC_ variable set; then the key and
    the server's address are set, and the copy's call_model called: whether the server got the
    request, with that key. Then two calls of nano.model's call_model with a client (with a key
    of its own) already in _client: the keys the server saw, and what _client holds after."""
    t = testing()
    subject.environ(**{name: None for name in ANTHROPIC})
    fresh = subject.fresh("nano.model", "_fresh_nano_model")
    number = fresh.get("ref")
    client = subject.read(f"${number}._client") if isinstance(number, int) else {"raised": ["NoModule"]}
    with doubles.given("server").MessagesServer([t.reply(t.text("pong"))] * 3) as server:
        url = subject.serve(server)
        pointed_at(subject, url)
        late = (subject.call(f"${number}.call_model", [{"role": "user", "content": "zero"}])
                if isinstance(number, int) else {"raised": ["NoModule"]})
        before = received(server)
        ready = ready_client(subject, url)
        subject.set("nano.model._client", ready)
        calls = [subject.call("nano.model.call_model", [{"role": "user", "content": text}]) for text in ("one", "two")]
        after = subject.read("nano.model._client")
        return {"imported": fresh.get("raised"), "message": fresh.get("message"),
                "fresh_client": client.get("value", "unread") if "raised" not in client else "unread",
                "late": late, "late_keys": [r[2] for r in before],
                "ready": ready is not None, "calls": calls, "keys": [r[2] for r in received(server)[len(before):]],
                "kept": ready is not None and after.get("ref") == ready.number}


def shown(outcome):
    if isinstance(outcome, dict) and outcome.get("raised"):
        return f"it raised {at(outcome, 'raised', 0)}: {str(outcome.get('message'))[:300]}"
    return "it returned"


def judge_fresh_import(inputs, seen):
    if seen.get("imported") or seen.get("fresh_client", "unread") is not None:
        yield "importing nano/model.py must not build a client: build it in call_model (section 1)"
        return
    if seen.get("late_keys") != [KEY]:
        failed = [c for c in listed(seen.get("calls")) if isinstance(c, dict) and c.get("raised")]
        if failed and part(seen, "late").get("raised"):  # it fails with a client ready too: not the import
            yield f"call_model raised {at(failed, 0, 'raised', 0)}: {at(failed, 0, 'message')} (section 1)"
            return
        yield ("importing nano/model.py must not build a client: build it in call_model, which reads "
               f"ANTHROPIC_API_KEY when it first runs; a fresh copy set up afterwards sent "
               f"{len(listed(seen.get('late_keys')))} requests with the key ({shown(seen.get('late'))}) (section 1)")
    if seen.get("ready") is not True:
        return  # the grader's own client could not be built: nothing to judge it by
    if seen.get("keys") != [READY_KEY, READY_KEY] or seen.get("kept") is not True:
        yield "when _client already holds a client, call_model must use it and keep it (section 1)"


def module_client(subject, module):
    """nano.model._client, named by the subject: (its type's name, its name there)."""
    if module is None:
        return None, None
    got = subject.call("builtins.getattr", module, "_client", keep=True)
    return got.get("type"), got.get("ref")


def drive_reuses_client(subject, inputs):
    """Three call_models to the server. The first two from an empty _client, with the key in the
    environment changed between them: a client is given its key when it is built, so the key
    each request carried says which client sent it (and the names the subject gives what _client
    holds after each call say the same from inside). The third with a client of the grader's (a
    key of its own) already in _client."""
    t = testing()
    with doubles.given("server").MessagesServer([t.reply(t.text("pong"))] * 3) as server:
        url = subject.serve(server)
        pointed_at(subject, url)
        subject.set("nano.model._client", None)
        got = subject.call("importlib.import_module", "nano.model", keep=True)
        module = doubles.Ref(got["ref"]) if type(got.get("ref")) is int else None
        calls = [subject.call("nano.model.call_model", [{"role": "user", "content": "one"}])]
        first_type, first_name = module_client(subject, module)
        subject.environ(ANTHROPIC_API_KEY=SECOND_KEY)
        calls.append(subject.call("nano.model.call_model", [{"role": "user", "content": "two"}]))
        _, second_name = module_client(subject, module)
        ready = ready_client(subject, url)
        subject.set("nano.model._client", ready)
        calls.append(subject.call("nano.model.call_model", [{"role": "user", "content": inputs["three"]}]))
        after = subject.read("nano.model._client")
        return {"calls": calls, "keys": [r[2] for r in received(server)], "first_type": first_type,
                "second_is_first": first_name is not None and first_name == second_name,
                "ready": ready is not None, "third_is_ready": ready is not None and after.get("ref") == ready.number}


def judge_reuses_client(inputs, seen):
    for call in listed(seen.get("calls")):
        if isinstance(call, dict) and call.get("raised"):
            yield f"call_model raised {at(call, 'raised', 0)}: {call.get('message')} (section 1)"
            break
    keys = listed(seen.get("keys"))
    if len(keys) != 3:
        yield f"three calls must send three requests; the server saw {len(keys)} (section 1)"
    if seen.get("first_type") != "AsyncAnthropic":
        yield "after the first call, _client must hold the AsyncAnthropic client it built (section 1)"
    if at(keys, 0) != KEY:
        yield "call_model must build its client with AsyncAnthropic(), which reads ANTHROPIC_API_KEY (section 1)"
    elif at(keys, 1) != KEY:
        yield ("two calls built 2 clients: the second request carried a key set after the first call, which only "
               "a client built after it reads; build one, once, and reuse it (section 1)")
    elif seen.get("second_is_first") is not True:
        yield "the second call must reuse the client in _client, not build a new one (section 1)"
    if seen.get("ready") is True and (seen.get("third_is_ready") is not True or at(keys, 2) != READY_KEY):
        yield "when _client already holds a client, call_model must use it (section 1)"


# ---------------------------------------------------------------------------------------------
# The unlock questions

def drive_answer(subject, inputs):
    return subject.answers([inputs["name"]])


def judge_answer(inputs, seen):
    value, truth, where = seen.get(inputs["name"]), inputs["truth"], inputs["where"]
    if value == {"missing": True} or inputs["name"] not in seen:
        yield (f"question {inputs['number']} was not answered: run your answer cell for question "
               f"{inputs['number']} first ({where}, unlock question {inputs['number']})")
    elif type(truth) is int:
        if type(value) is not int or value != truth:
            yield inputs["hint"]
    elif not isinstance(value, str) or value.strip().lower() != truth:
        yield inputs["hint"]


def question(number, truth, where, hint):
    return Behaviour(f"l05_q{number}_check", drive_answer, total(judge_answer),
                     given={"name": f"answer_q{number}", "number": number, "truth": truth, "where": where,
                            "hint": hint},
                     answers=(f"l05_q{number}_answer",))


# ---------------------------------------------------------------------------------------------
# agent_loop, section 2: a reply without tool requests, and the assistant turn

def draw_text_reply(rng):
    return {"number": rng.randrange(10**6), "requests": [f"Request {rng.randrange(10**6)}" for _ in range(3)]}


def drive_text_reply(subject, inputs):
    """Text-only replies (visible: one; hidden: three more, with two texts or a thinking block),
    with run_tool, confirm and call_model refusing to be reached."""
    t = testing()
    log, runs = [], []
    cases = [([t.text("Nothing to do here.")], "Say hi."),
             ([t.text(f"All clear, number {inputs['number']}.")], inputs["requests"][0]),
             ([t.text("First thought."), t.text("Second thought.")], inputs["requests"][1]),
             ([{"type": "thinking", "thinking": "Nothing to run.", "signature": "sig-test"}, t.text("Done already.")],
              inputs["requests"][2])]
    for blocks, request in cases:
        start = [{"role": "user", "content": request}]
        run, _ = run_loop(subject, log, start, [t.reply(*blocks)], tools=Refuse("ran"),
                          gate=Refuse("asked the gate about"), call_model=True)
        runs.append({**run, "start": start})
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
        elif not equal(at(run, "seen", 0), run.get("start")):
            yield "the model must be called with the messages list (section 2)"
        elif index == 0 and listed(run.get("roles")) != ["user", "assistant"]:
            yield f"expected two entries, user then assistant; got {run.get('roles')} (section 2)"
        elif len(listed(run.get("roles"))) != 2 or not equal(at(run, "messages", 0), at(run, "start", 0)):
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


def turns(run):
    """Each assistant entry of a run beside the reply it should hold, as the API would see both:
    whether it is exactly {"role": "assistant", "content": the reply's content}, in the caller's
    list and in what the model was sent on its next call."""
    messages, seen, replies = listed(run.get("messages")), listed(run.get("seen")), listed(run.get("replies"))
    entries = [(i, m) for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"]
    out = []
    for call, ((index, entry), content) in enumerate(zip(entries, replies)):
        expected = {"role": "assistant", "content": content}
        sent = at(seen, call + 1)
        out.append({"index": index, "equal": equal(entry, expected),
                    "sent": sent is None or equal(at(sent, index), expected),
                    "thinking": equal(thoughts(at(entry, "content")), thoughts(content))})
    return {"count": len(entries), "turns": out}


LOST_THINKING = ("messages[{index}] lost or changed the reply's thinking block: push reply.content as it came; "
                 "the API refuses a tool-use turn sent back without its thinking (section 2)")


def thoughts(content):
    """The thinking blocks of a content list, in order."""
    return [b for b in listed(content) if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")]


def drive_verbatim(subject, inputs):
    """A two-text reply (visible), then three replies mixing thinking, text and tool_use blocks: the
    second opens with a thinking block as a live reply of today's model does, its text empty."""
    t = testing()
    log = []
    start = [{"role": "user", "content": "Answer in two paragraphs."}]
    thought = {"type": "thinking", "thinking": "", "signature": "EuYBCkQIBhgCIkBhbnN3ZXIgaW4gdHdv"}
    visible, _ = run_loop(subject, log, start, [t.reply(thought, t.text("Here is my answer."),
                                                        t.text("And a second paragraph."))],
                          tools=Canned("output of {name} for {input}"), gate=Fixed(True))
    ids = inputs["ids"]
    replies = [
        t.reply({"type": "thinking", "thinking": "I should read the file first.", "signature": f"sig-{ids[0]}"},
                t.text("Let me look."), t.tool_use(ids[0], "read_file", {"path": "app.py"})),
        t.reply({"type": "thinking", "thinking": "", "signature": f"EuYBCkQIBhgC{ids[1]}"},
                t.tool_use(ids[1], "list_files", {"path": "src"}), t.text("Also checking the folder."),
                t.tool_use(ids[2], "read_file", {"path": "src/main.py"})),
        t.reply(t.text("All read. Nothing needs changing.")),
    ]
    hidden, _ = run_loop(subject, log, [{"role": "user", "content": "Look around."}], replies,
                         tools=Canned("output of {name} for {input}"), gate=Fixed(True))
    return {"visible": visible, "hidden": hidden}


def judge_verbatim(inputs, seen):
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    if raised(visible, "section 2"):
        yield raised(visible, "section 2")
    if at(turns(visible), "turns", 0, "thinking") is False:
        yield LOST_THINKING.format(index=1)
    elif at(turns(visible), "turns", 0, "equal") is not True:
        yield 'the assistant entry must be exactly {"role": "assistant", "content": reply.content} (section 2)'
    if raised(hidden, "section 2"):
        yield raised(hidden, "section 2")
    found = turns(hidden)
    if found["count"] != 3:
        yield f"three model calls must give three assistant entries, got {found['count']} (section 2)"
    for turn in found["turns"]:
        if turn["equal"] is not True and turn["thinking"] is not True:
            yield LOST_THINKING.format(index=turn["index"])
        elif turn["equal"] is not True:
            yield (f"messages[{turn['index']}] must be exactly the reply's content as it came, thinking and "
                   "tool_use blocks included: nothing filtered, rebuilt or added (section 2)")
        elif turn["sent"] is not True:
            yield (f"the model's next call must be sent messages[{turn['index']}] exactly as the reply came "
                   "(section 2)")


# ---------------------------------------------------------------------------------------------
# agent_loop, sections 3 and 4: results, errors, the gate, one message, the list, the limit

def draw_by_id(rng):
    return {"ids": [f"toolu_{rng.getrandbits(48):012x}" for _ in range(4)],
            "paths": [f"dir_{rng.getrandbits(16):04x}/file_{n}.txt" for n in range(4)]}


def drive_by_id(subject, inputs):
    t = testing()
    log = []
    visible, _ = run_loop(subject, log, [{"role": "user", "content": "Read notes.txt."}],
                          [t.reply(t.tool_use("toolu_check_1", "read_file", {"path": "notes.txt"})), t.reply(t.text("Read it."))],
                          tools=Canned("contents of {path}"), gate=Fixed(True))
    visible["ran"] = [[e[1], e[2]] for e in log if e[0] == "run"]
    ids, paths = inputs["ids"], inputs["paths"]
    replies = [
        t.reply(t.tool_use(ids[0], "read_file", {"path": paths[0]})),
        t.reply(t.text("Two more."), t.tool_use(ids[1], "read_file", {"path": paths[1]}),
                t.tool_use(ids[2], "list_files", {"path": paths[2]})),
        t.reply(t.tool_use(ids[3], "read_file", {"path": paths[3]})),
        t.reply(t.text("That is everything.")),
    ]
    hidden, _ = run_loop(subject, log, [{"role": "user", "content": "Read them all."}], replies,
                         tools=Canned("contents of {path}"), gate=Fixed(True))
    return {"visible": visible, "hidden": hidden}


def judge_by_id(inputs, seen):
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    if raised(visible, "section 3"):
        yield raised(visible, "section 3")
    if not equal(visible.get("ran"), [["read_file", {"path": "notes.txt"}]]):
        yield f"run_tool must run the requested tool once; it ran {visible.get('ran')} (section 3)"
    third = at(visible, "messages", 2)
    if not equal(third, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_check_1",
                                                      "content": "contents of notes.txt", "is_error": False}]}):
        yield ("messages[2] must be one user message holding the tool_result for toolu_check_1; "
               f"got {third!r} (sections 3 and 4)")
    if raised(hidden, "section 3"):
        yield raised(hidden, "section 3")
    results = user_results(hidden.get("messages"))
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


def drive_tool_error(subject, inputs):
    t = testing()
    log = []
    visible, _ = run_loop(subject, log, [{"role": "user", "content": "Read missing.txt."}],
                          [t.reply(t.tool_use("toolu_err_1", "read_file", {"path": "missing.txt"})),
                           t.reply(t.text("That file is missing."))], tools=Canned("missing"), gate=Fixed(True))
    n = inputs["n"]
    replies = [
        t.reply(t.tool_use("toolu_m1", "read_file", {"path": f"a_{n}.py"}), t.tool_use("toolu_m2", "read_file", {"path": "ok.txt"}),
                t.tool_use("toolu_m3", "list_files", {"path": f"slow_{n}"})),
        t.reply(t.tool_use("toolu_m4", "read_file", {"path": f"odd_{n}"})),
        t.reply(t.text("I have seen the errors.")),
    ]
    hidden, _ = run_loop(subject, log, [{"role": "user", "content": "Try these."}], replies,
                         tools=Canned("fine: {path}", inputs["errors"]), gate=Fixed(True))
    return {"visible": visible, "hidden": hidden}


def judge_tool_error(inputs, seen):
    visible, hidden, n = part(seen, "visible"), part(seen, "hidden"), inputs["n"]
    result = part(visible, "messages", 2, "content", 0)
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
    results = user_results(hidden.get("messages"))
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


def drive_declined(subject, inputs):
    """A declined bash (visible); each gated tool declined, with the loop's own asker; a mixed
    run whose gate says no, yes, yes."""
    t = testing()
    log = []
    visible, _ = run_loop(subject, log, [{"role": "user", "content": "Clean up."}],
                          [t.reply(t.tool_use("toolu_no_1", "bash", {"command": "rm -rf build"})),
                           t.reply(t.text("All right, I won't."))], tools=Canned("ran {name}"), gate=Answers([False]))
    visible["events"] = events(log)
    tags, ids, each = inputs["tags"], inputs["ids"], []
    asker = doubles.asker(subject, refuse=True)
    for (name, tool_input), tool_id in zip(
            (("write_file", {"path": f"new_{tags[0]}.py", "content": "x = 1\n"}),
             ("edit_file", {"path": "app.py", "old_string": "a", "new_string": f"b{tags[1]}"}),
             ("bash", {"command": f"touch sentinel_{tags[2]}"})), ids):
        log = []
        run, _ = run_loop(subject, log, [{"role": "user", "content": f"Use {name}."}],
                          [t.reply(t.tool_use(tool_id, name, tool_input)), t.reply(t.text("OK."))],
                          tools=Canned("ran {name}"), gate=Fixed(False), asker=asker)
        each.append({**run, "name": name, "input": tool_input, "events": events(log),
                     "asked": [[e[3], e[1], e[2]] for e in log if e[0] == "ask"]})
    log = []
    replies = [
        t.reply(t.tool_use("toolu_w", "write_file", {"path": "x.txt", "content": "x"}),
                t.tool_use("toolu_b", "bash", {"command": "echo yes"})),
        t.reply(t.tool_use("toolu_e", "edit_file", {"path": "x.txt", "old_string": "x", "new_string": "y"})),
        t.reply(t.text("Done.")),
    ]
    mixed, _ = run_loop(subject, log, [{"role": "user", "content": "Go."}], replies, tools=Canned("ran {name}"),
                        gate=Answers([False, True, True]))
    return {"visible": visible, "each": each, "mixed": {**mixed, "events": events(log)}}


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
        if not equal(run.get("asked"), [[True, name, run.get("input")]]):
            yield f"confirm must be called once, as confirm(ask, block.name, block.input); got {run.get('asked')} (section 3)"
        result = at(run, "messages", 2, "content", 0)
        if not declined(result):
            yield "a declined result must say 'declined' (section 3)"
        elif result.get("is_error", False) is not False:
            yield "a denial is not an error: is_error must be False (section 3)"
    mixed = part(seen, "mixed")
    found = [e for e in listed(mixed.get("events")) if isinstance(e, list)]
    if raised(mixed, "section 3"):
        yield raised(mixed, "section 3")
    if ["run", "write_file"] in found:
        yield "the declined write_file must never run (section 3)"
    for name in ("bash", "edit_file"):
        if ["run", name] not in found:
            yield f"an approved {name} must run (section 3)"
        elif ["ask", name] not in found or found.index(["ask", name]) > found.index(["run", name]):
            yield f"the gate must be asked before {name} runs, never after (section 3)"
    results = user_results(mixed.get("messages"))
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


def drive_ungated(subject, inputs):
    t = testing()
    log = []
    visible, asker = run_loop(subject, log, [{"role": "user", "content": "Look."}],
                              [t.reply(t.tool_use("toolu_u1", "list_files", {"path": "."})),
                               t.reply(t.tool_use("toolu_u2", "read_file", {"path": "a.txt"})), t.reply(t.text("Seen it."))],
                              tools=Canned("output of {name}"), gate=Fixed(True))
    visible.update(asked=[e[1] for e in log if e[0] == "ask"], prompts=len(asker.prompts))
    log = []
    replies = [
        t.reply(t.tool_use("toolu_g1", "read_file", {"path": "a.txt"}), t.tool_use("toolu_g2", "bash", {"command": "ls"}),
                t.tool_use("toolu_g3", "list_files", {"path": "."}), t.tool_use("toolu_g4", "search_web", {"query": "x"})),
        t.reply(t.text("Done.")),
    ]
    hidden, asker = run_loop(subject, log, [{"role": "user", "content": "Mix."}], replies,
                             tools=Canned("output of {name}"), gate=Fixed(True))
    hidden.update(asked=[e[1] for e in log if e[0] == "ask"], prompts=len(asker.prompts))
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
    results = user_results(hidden.get("messages"))
    if len(results) != 4 or at(results, 3, "content") != "output of search_web":
        yield "a tool name that is not in GATED is not gated: it runs without asking (section 3)"


def draw_tag(rng):
    return {"tag": f"{rng.getrandbits(24):06x}"}


def drive_one_message(subject, inputs):
    t = testing()
    log = []
    visible, _ = run_loop(subject, log, [{"role": "user", "content": "Read a.txt and b.txt."}],
                          [t.reply(t.tool_use("toolu_p1", "read_file", {"path": "a.txt"}),
                                   t.tool_use("toolu_p2", "read_file", {"path": "b.txt"})), t.reply(t.text("Both read."))],
                          tools=Canned("text of {path}"), gate=Fixed(True))
    tag = inputs["tag"]
    replies = [
        t.reply(t.text("Three things."), t.tool_use("toolu_q1", "read_file", {"path": f"one_{tag}.txt"}),
                t.tool_use("toolu_q2", "bash", {"command": f"make {tag}"}), t.tool_use("toolu_q3", "list_files", {"path": tag})),
        t.reply(t.tool_use("toolu_q4", "read_file", {"path": f"c_{tag}.txt"}), t.tool_use("toolu_q5", "read_file", {"path": f"d_{tag}.txt"})),
        t.reply(t.text("Finished.")),
    ]
    hidden, _ = run_loop(subject, log, [{"role": "user", "content": "Do three things."}], replies,
                         tools=Canned("various"), gate=Fixed(True))
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
    found = [c if isinstance(c, str) else text_of(c) for c in contents(at(hidden, "messages", 2))]
    if found != [f"text of one_{tag}.txt", f"ran make {tag}", f"text of {tag}"]:
        yield f"one user message must hold all three results of the first turn, in order; got {found} (section 4)"
    second = contents(at(hidden, "messages", 4))
    if second != [f"text of c_{tag}.txt", f"text of d_{tag}.txt"]:
        yield f"the second turn's two results, in order; got {second} (section 4)"
    if hidden.get("seen") != [1, 3, 5]:
        yield "the model must be called once after each single results message (section 4)"
    if hidden.get("status") != "done":
        yield f"agent_loop returned {hidden.get('status')!r}, expected 'done' (section 4)"


def drive_callers_list(subject, inputs):
    """The caller's list, read back by its name after each run: it must have grown in place."""
    t = testing()
    log = []
    visible, _ = run_loop(subject, log, [{"role": "user", "content": "What files are here?"}],
                          [t.reply(t.tool_use("toolu_l1", "list_files", {"path": "."})), t.reply(t.text("Just a.txt."))],
                          tools=Fixed("a.txt"), gate=Fixed(True))
    earlier = [{"role": "user", "content": "Hello."},
               {"role": "assistant", "content": [t.text("Hi! What shall we do?")]},
               {"role": "user", "content": "List the files, then read one."}]
    hidden, _ = run_loop(subject, log, earlier,
                         [t.reply(t.tool_use("toolu_l2", "list_files", {"path": "."})),
                          t.reply(t.tool_use("toolu_l3", "read_file", {"path": "a.txt"})), t.reply(t.text("a.txt says a."))],
                         tools=Fixed("a.txt"), gate=Fixed(True))
    return {"visible": {"raised": visible["raised"], "message": visible["message"], "length": len(visible["roles"]),
                        "read": visible["messages"] is not None},
            "hidden": {"raised": hidden["raised"], "message": hidden["message"], "length": len(hidden["roles"]),
                       "kept": equal(listed(hidden["messages"])[:3], earlier),
                       "seen": [len(s) if isinstance(s, list) else None for s in hidden["seen"]]}}


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
    t = testing()
    return [t.reply(*[t.tool_use(f"toolu_forever_{call}_{n}", "list_files", {"path": "."}) for n in range(per_call)])
            for call in range(1, 61)]


def drive_turn_limit(subject, inputs):
    t = testing()
    log = []

    def limited(replies, **limit):
        run, _ = run_loop(subject, log, [{"role": "user", "content": "List."}], replies, tools=Fixed("a.txt"),
                          gate=Fixed(True), **limit)
        return {key: run[key] for key in ("status", "raised", "message", "calls")}

    runs = [{**limited(asks_forever(per_call), max_turns=limit), "limit": limit} for limit, per_call in inputs["limits"]]
    limit = inputs["finishing"]
    replies = [t.reply(t.tool_use(f"toolu_fin_{i}", "list_files", {"path": "."})) for i in range(limit - 1)] + [t.reply(t.text("Done."))]
    return {"runs": runs, "default": limited(asks_forever(1)), "finishing": limited(replies, max_turns=limit)}


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


def drive_celsius(subject, inputs):
    trace = doubles.given("trace").load_trace()
    replies = [r.model_dump(mode="json", exclude_none=True) for r in trace.replies]
    outputs = {"read_file": trace.entries[2]["content"][0]["content"], "edit_file": trace.entries[4]["content"][0]["content"]}
    log = []
    answers = [a.strip().lower() in ("y", "yes") for a in trace.answers]
    visible, _ = run_loop(subject, log, [{"role": "user", "content": trace.request}], replies,
                          tools=FromTable(outputs), gate=Answers(answers))
    hidden, _ = run_loop(subject, log, [{"role": "user", "content": trace.request}], renamed(replies, inputs["new"]),
                         tools=FromTable(outputs), gate=Answers([True]))
    return {"visible": visible, "hidden": hidden, "entries": trace.entries,
            "expected": renamed(trace.entries, inputs["new"])}


def first_difference(got, expected):
    """Where two lists of entries first differ, in words."""
    got, expected = listed(got), listed(expected)
    for i in range(max(len(got), len(expected))):
        mine, theirs = at(got, i), at(expected, i)
        if not equal(mine, theirs):
            return f"messages[{i}] is {text_of(mine)[:300]}, expected {text_of(theirs)[:300]}"
    return "they are the same"


def judge_celsius(inputs, seen):
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    entries, expected = seen.get("entries"), seen.get("expected")
    if raised(visible, "section 5"):
        yield raised(visible, "section 5")
    if not equal(visible.get("messages"), entries):
        yield f"your loop's entries differ from the Celsius trace (section 5): {first_difference(visible.get('messages'), entries)}"
    if visible.get("status") != "done":
        yield f"agent_loop returned {visible.get('status')!r} after the trace, expected 'done' (section 5)"
    if not equal(hidden.get("messages"), expected):
        yield ("on a second trace with new ids and texts, the entries differ (section 5): "
               + first_difference(hidden.get("messages"), expected))
    elif isinstance(expected, list) and not equal(hidden.get("seen"), [expected[:1], expected[:3], expected[:5]]):
        yield "call k of the model must see exactly the entries before it: 1, then 3, then 5 (sections 2 and 4)"


def total(judge):
    """`judge`, reading anything that is not a dict as an empty `seen`."""
    def judged(inputs, seen):
        return judge(inputs, seen if isinstance(seen, dict) else {})
    judged.__name__ = judged.__qualname__ = judge.__name__
    judged.__doc__ = judge.__doc__
    return judged


BEHAVIOURS = [
    # First: the first client built in a subject (whose start imports the SDK) is slow on a loaded machine.
    Behaviour("l05_call_model_sends_five_fields", drive_one_call, total(judge_one_call), timeout=60),
    Behaviour("l05_call_model_sends_five_fields", drive_five_fields, total(judge_five_fields), draw_request),
    Behaviour("l05_call_model_reuses_client", drive_fresh_import, total(judge_fresh_import)),
    Behaviour("l05_call_model_reuses_client", drive_reuses_client, total(judge_reuses_client), draw_request),
    question(1, "c", "section 1",
             "unlock question 1: the SDK reads the key when the client is built, and the installed one does not "
             "complain until the first request (section 1, the cell with early and late)"),
    Behaviour("l05_text_reply_ends", drive_text_reply, total(judge_text_reply), draw_text_reply),
    Behaviour("l05_assistant_turn_verbatim", drive_verbatim, total(judge_verbatim), draw_verbatim),
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
    Behaviour("l05_results_matched_by_id", drive_by_id, total(judge_by_id), draw_by_id),
    Behaviour("l05_tool_error_becomes_result", drive_tool_error, total(judge_tool_error), draw_tool_error),
    Behaviour("l05_declined_tool_never_runs", drive_declined, total(judge_declined), draw_declined),
    Behaviour("l05_ungated_tools_skip_gate", drive_ungated, total(judge_ungated)),
    Behaviour("l05_one_user_message_for_all_results", drive_one_message, total(judge_one_message), draw_tag),
    Behaviour("l05_callers_list_mutated", drive_callers_list, total(judge_callers_list)),
    Behaviour("l05_turn_limit", drive_turn_limit, total(judge_turn_limit), draw_turn_limit),
    Behaviour("l05_celsius_trace_matches", drive_celsius, total(judge_celsius), draw_celsius),
]
