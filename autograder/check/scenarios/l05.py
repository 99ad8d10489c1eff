"""The independent check of lecture 05 (the agent loop): call_model, agent_loop and the unlock answers.

call_model's scenarios talk to a real http.server on 127.0.0.1 (in the scenario's own process)
through the real anthropic SDK, as its hidden tests do. agent_loop's run against scripted models,
with run_tool and confirm replaced where nano.loop looks them up, exactly as the tests replace
them, so a mistake in lectures 02-04 costs nothing here. Every scenario reports the raw messages
list (SDK objects dumped to JSON), what the stand-ins saw, and `id()`s where a test asks `is`;
the judges apply the tests' asserts, inputs taken from the reference's observations.
"""

from autograder.check.scenarios import HELPERS, text as _status
from autograder.check.independent import Scenario

# Conversations in the student's process: SDK objects dumped to plain data, scripted replies.
# Lecture 06's scenarios start with these too.
SDK = HELPERS + '''
import asyncio, copy, io, json, unittest.mock, warnings

from anthropic.types import Message


def hexes(n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def dump(value):
    """`value` as plain data: SDK objects dumped as nano.trace.plain does (the runner's observe
    marks anything else it cannot send)."""
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [dump(v) for v in value]
    if hasattr(type(value), "model_dump"):
        try:
            return value.model_dump(mode="json", exclude_none=True)
        except Exception:
            return {"unplain": type(value).__name__}
    return value


def text(value):
    return {"type": "text", "text": value}


def tool_use(id, name, input):
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def reply(*blocks):
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return Message.model_validate({"id": f"msg_v_{hexes(8)}", "type": "message", "role": "assistant",
                                   "model": "scripted", "content": [copy.deepcopy(b) for b in blocks],
                                   "stop_reason": stop, "stop_sequence": None,
                                   "usage": {"input_tokens": 0, "output_tokens": 0}})
'''

# Helpers every scenario of this lecture starts with: the scripted model and the loop's stand-ins.
PRELUDE = SDK + '''
import nano.loop


class Runaway(BaseException):
    pass


class Model:
    """scripted_model's twin: the replies in order, a deep copy of each call's messages in .seen."""

    def __init__(self, replies):
        self.replies, self.seen = list(replies), []

    async def __call__(self, messages):
        if len(self.seen) >= len(self.replies) + 20:
            raise Runaway("the model was called far past the end of its script")
        self.seen.append(copy.deepcopy(list(messages)))
        if len(self.seen) > len(self.replies):
            raise AssertionError("the model was called more often than scripted")
        return self.replies[len(self.seen) - 1]

    @property
    def calls(self):
        return len(self.seen)


class NoAsker:
    def __init__(self):
        self.prompts = []

    async def question(self, prompt):
        self.prompts.append(prompt)
        raise AssertionError("the gate should not have been consulted")


def yes_gate():
    async def gate(ask, name, input):  # for the cells that are not about the gate
        return True
    return gate


def run(messages, ask, model, tools=None, gate=None, call_model=None, **limit):
    """attempt(agent_loop(messages, ask, model, **limit)) with nano.loop's run_tool, confirm and
    call_model replaced by those given."""
    with contextlib.ExitStack() as stack:
        for attr, double in (("run_tool", tools), ("confirm", gate), ("call_model", call_model)):
            if double is not None:
                stack.enter_context(unittest.mock.patch.object(nano.loop, attr, double))
        return attempt(lambda: asyncio.run(nano.loop.agent_loop(messages, ask, model, **limit)))


def results(messages):
    """Every block of every user message after the first, as the tests gather the tool results."""
    return [b for m in messages[1:] if isinstance(m, dict) and m.get("role") == "user"
            and isinstance(m.get("content"), (list, tuple)) for b in m["content"]]
'''


def _python_str(value):
    """What str() gives in the student's process for a value that came back as JSON (str stays str)."""
    return value if isinstance(value, str) else repr(value)


def _roles(messages: list) -> list:
    return [m.get("role") if isinstance(m, dict) else None for m in messages]


# --- call_model ------------------------------------------------------------------------------

FAKE_API = '''
import logging, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import nano.model

requests = []


def answering(text_of_reply):
    class FakeAPI(BaseHTTPRequestHandler):
        def do_POST(self):
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                requests.append([self.path, json.loads(data or b"{}")])
            except ValueError:
                requests.append([self.path, {"unreadable body": data.decode(errors="replace")}])
            out = json.dumps({"id": "msg_test", "type": "message", "role": "assistant", "model": "m",
                              "content": [{"type": "text", "text": text_of_reply}], "stop_reason": "end_turn",
                              "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeAPI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def with_fake_api(server, calls):
    """asyncio.run(calls()) with the SDK pointed at `server`, then everything put back."""
    saved = {k: os.environ.get(k) for k in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "NO_PROXY", "no_proxy")}
    saved_client = nano.model._client
    try:
        os.environ["ANTHROPIC_API_KEY"] = "sk-test-not-a-real-key"
        os.environ["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{server.server_port}"
        for k in ("NO_PROXY", "no_proxy"):
            os.environ[k] = "127.0.0.1" + (f",{saved[k]}" if saved[k] else "")
        logging.disable(logging.CRITICAL)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return asyncio.run(calls())
    finally:
        nano.model._client = saved_client
        logging.disable(logging.NOTSET)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        server.shutdown()
        server.server_close()


class StandInClient:
    """Records what call_model asks of its client instead of sending it anywhere."""

    def __init__(self):
        self.messages = self
        self.sent = []

    async def create(self, **fields):
        self.sent.append(fields)
        return "the reply"
'''

FIVE_FIELDS_STAND_IN = PRELUDE + FAKE_API + '''
stand_in, saved = StandInClient(), nano.model._client
nano.model._client = stand_in
try:
    with unittest.mock.patch.object(nano.model.anthropic, "AsyncAnthropic", lambda *args, **kwargs: stand_in):
        got = asyncio.run(nano.model.call_model([{"role": "user", "content": "hi"}]))
finally:
    nano.model._client = saved
observe(fields=[sorted(str(k) for k in sent) for sent in stand_in.sent], got=got)
'''


def judge_five_fields_stand_in(got: dict, ref: dict) -> bool:
    return got["fields"] == ref["fields"] and len(ref["fields"]) == 1 and got["got"] == "the reply"


FIVE_FIELDS = PRELUDE + FAKE_API + '''
token = f"pong-{rng.randrange(10**8)}"
server = answering(token)
model_id = f"claude-test-{rng.randrange(10**6)}"
max_tokens = rng.randrange(1000, 9000)
system = f"You are a test system prompt number {rng.randrange(10**6)}."
first = [{"role": "user", "content": f"ping {rng.randrange(10**6)}"}]
second = [
    {"role": "user", "content": "read it"},
    {"role": "assistant", "content": reply(text("Reading."), tool_use("toolu_t1", "read_file", {"path": "a.txt"})).content},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_t1", "content": "hi", "is_error": False}]},
]


async def calls():
    nano.model._client = None
    try:
        with unittest.mock.patch.object(nano.model, "MODEL", model_id), \\
                unittest.mock.patch.object(nano.model, "MAX_TOKENS", max_tokens), \\
                unittest.mock.patch.object(nano.model, "SYSTEM_PROMPT", system):
            return [await nano.model.call_model(first), await nano.model.call_model(second)]
    finally:
        if nano.model._client is not None:
            try:
                await nano.model._client.close()
            except Exception:
                pass


returned = with_fake_api(server, calls)
kinds = [attempt(lambda: {"type": type(r).__name__, "text": r.content[0].text}) for r in returned]
observe(requests=requests, token=token, model=model_id, max_tokens=max_tokens, system=system,
        sent=[dump(first), dump(second)], tools=json.loads(json.dumps(nano.model.TOOLS)), returned=kinds)
'''


def judge_five_fields(got: dict, ref: dict) -> bool:
    if len(got["requests"]) != 2 or len(got["returned"]) != 2:
        return False
    for (path, body), sent in zip(got["requests"], ref["sent"]):
        if (path != "/v1/messages" or not isinstance(body, dict)
                or set(body) != {"model", "max_tokens", "system", "tools", "messages"}):
            return False
        if (body["model"] != ref["model"] or body["max_tokens"] != ref["max_tokens"]
                or body["system"] != ref["system"] or body["messages"] != sent):
            return False
        # tools= must be TOOLS: the course's five schemas, or the submission's own TOOLS, as the test reads it
        if body["tools"] != ref["tools"] and body["tools"] != got["tools"]:
            return False
    return all(isinstance(r.get("value"), dict) and r["value"].get("type") == "Message"
               and r["value"].get("text") == ref["token"] for r in got["returned"])


REUSES_STAND_IN = PRELUDE + FAKE_API + '''
import importlib.util

spec = importlib.util.spec_from_file_location("_fresh_nano_model", nano.model.__file__)
fresh = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fresh)
stand_in, saved = StandInClient(), nano.model._client
nano.model._client = stand_in
try:
    asyncio.run(nano.model.call_model([{"role": "user", "content": "one"}]))
    asyncio.run(nano.model.call_model([{"role": "user", "content": "two"}]))
    after = nano.model._client
finally:
    nano.model._client = saved
observe(fresh_client=dump(fresh._client), sent=len(stand_in.sent), after=id(after), stand_in=id(stand_in))
'''


def judge_reuses_stand_in(got: dict, ref: dict) -> bool:
    return got["fresh_client"] is None and got["sent"] == 2 and got["after"] == got["stand_in"]


REUSES = PRELUDE + FAKE_API + '''
server = answering("pong")
Real = nano.model.anthropic.AsyncAnthropic


class Counting(Real):
    built = 0

    def __init__(self, *args, **kwargs):
        type(self).built += 1
        super().__init__(*args, **kwargs)


made = []


async def calls():
    try:
        with unittest.mock.patch.object(nano.model.anthropic, "AsyncAnthropic", Counting):
            nano.model._client = None
            await nano.model.call_model([{"role": "user", "content": "one"}])
            made.append(nano.model._client)
            await nano.model.call_model([{"role": "user", "content": "two"}])
            made.append(nano.model._client)
            by_two_calls = Counting.built
            ready = Real()
            made.append(ready)
            nano.model._client = ready
            before = Counting.built
            await nano.model.call_model([{"role": "user", "content": f"three {rng.randrange(10**6)}"}])
            made.append(nano.model._client)
            return {"classes": [f"{c.__module__}.{c.__qualname__}" for c in type(made[0]).__mro__],
                    "ids": [id(c) for c in made], "by_two_calls": by_two_calls,
                    "after_ready": Counting.built - before}
    finally:
        for c in {id(c): c for c in made if c is not None}.values():
            try:
                await c.close()
            except Exception:
                pass


seen = with_fake_api(server, calls)
observe(requests=len(requests), real=f"{Real.__module__}.{Real.__qualname__}", **seen)
'''


def judge_reuses(got: dict, ref: dict) -> bool:
    c1, c2, ready, c3 = got["ids"]
    return (got["requests"] == 3 and ref["real"] in got["classes"] and c2 == c1
            and got["by_two_calls"] <= 1 and c3 == ready and got["after_ready"] == 0)


# --- the unlock questions --------------------------------------------------------------------

def _answer_scenario(n: int) -> Scenario:
    code = f'observe(answer=answers.get("answer_q{n}", {{"missing": "answer_q{n}"}}))\n'
    return Scenario(f"l05_q{n}_check", code, _judge_answer, answers=(f"l05_q{n}_answer",))


def _judge_answer(got: dict, ref: dict) -> bool:
    mine, truth = got["answer"], ref["answer"]
    if type(truth) is int:
        return type(mine) is int and mine == truth
    return isinstance(mine, str) and isinstance(truth, str) and mine.strip().lower() == truth.strip().lower()


# --- agent_loop ------------------------------------------------------------------------------

TEXT_ENDS = PRELUDE + '''
ran, gated, called = [], [], []


def no_tool(name, input):
    ran.append(name)
    raise AssertionError(f"agent_loop ran {name}, but the reply asked for no tool")


async def no_gate(ask, name, input):
    gated.append(name)
    raise AssertionError(f"agent_loop asked the gate about {name}")


async def not_call_model(messages):
    called.append(len(messages))
    raise AssertionError("agent_loop called call_model by name")


runs = []
for blocks in ([text("Nothing to do here.")],
               [text(f"All clear, number {rng.randrange(10**6)}.")],
               [text("First thought."), text("Second thought.")],
               [{"type": "thinking", "thinking": "Nothing to run.", "signature": "sig-test"}, text("Done already.")]):
    model = Model([reply(*blocks)])
    start = {"role": "user", "content": f"Request {rng.randrange(10**6)}"}
    messages = [start]
    outcome = run(messages, NoAsker(), model, tools=no_tool, gate=no_gate, call_model=not_call_model)
    runs.append({**outcome, "calls": model.calls, "seen": dump(model.seen), "messages": dump(messages),
                 "first": id(messages[0]) if messages else None, "start": id(start)})
observe(runs=runs, ran=ran, gated=gated, called=called)
'''


def judge_text_ends(got: dict, ref: dict) -> bool:
    if got["ran"] or got["gated"] or got["called"] or len(got["runs"]) != len(ref["runs"]):
        return False
    for mine, truth in zip(got["runs"], ref["runs"]):
        messages = mine["messages"]
        if ("raised" in mine or _status(mine) != "done" or mine["calls"] != 1 or mine["seen"] != truth["seen"]
                or len(messages) != 2 or mine["first"] != mine["start"] or _roles(messages)[1] != "assistant"):
            return False
    return True


VERBATIM = PRELUDE + '''
runs = []
first = reply(text("Here is my answer."), text("And a second paragraph."))
messages = [{"role": "user", "content": "Answer in two paragraphs."}]
outcome = run(messages, NoAsker(), Model([first]))


def turns(messages, replies):
    entries = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
    return [{"entry": dump(m), "keys": sorted(str(k) for k in m), "kind": type(m.get("content")).__name__,
             "blocks": [id(b) for b in m.get("content")] if isinstance(m.get("content"), (list, tuple)) else None,
             "reply": [id(b) for b in r.content], "expected": dump({"role": "assistant", "content": r.content})}
            for m, r in zip(entries, replies)] + [{"extra": True}] * max(0, len(entries) - len(replies))


runs.append({**outcome, "turns": turns(messages, [first]), "second": dump(messages[1:2])})
ids = [f"toolu_{hexes(10)}" for _ in range(3)]
replies = [
    reply({"type": "thinking", "thinking": "I should read the file first.", "signature": f"sig-{ids[0]}"},
          text("Let me look."), tool_use(ids[0], "read_file", {"path": "app.py"})),
    reply(tool_use(ids[1], "list_files", {"path": "src"}), text("Also checking the folder."),
          tool_use(ids[2], "read_file", {"path": "src/main.py"})),
    reply(text("All read. Nothing needs changing.")),
]
messages = [{"role": "user", "content": "Look around."}]
outcome = run(messages, NoAsker(), Model(replies), tools=lambda name, input: f"output of {name} for {input}",
              gate=yes_gate())
runs.append({**outcome, "turns": turns(messages, replies)})
observe(runs=runs)
'''


def judge_verbatim(got: dict, ref: dict) -> bool:
    visible, hidden = got["runs"]
    if "raised" in visible or not visible["turns"] or visible["turns"][0].get("extra"):
        return False  # the visible check reads messages[1]: it must be the first reply's turn
    if "raised" in hidden or len(hidden["turns"]) != 3:
        return False
    for turn in visible["turns"][:1] + hidden["turns"]:
        if (turn.get("extra") or turn["kind"] != "list" or turn["keys"] != ["content", "role"]
                or turn["entry"] != turn["expected"] or turn["blocks"] != turn["reply"]):
            return False
    return visible["second"] == [visible["turns"][0]["entry"]]


RESULTS_BY_ID = PRELUDE + '''
ran = []


def canned(name, input):
    ran.append([name, dict(input)])
    return f"contents of {input.get('path')}"


model = Model([reply(tool_use("toolu_check_1", "read_file", {"path": "notes.txt"})), reply(text("Read it."))])
messages = [{"role": "user", "content": "Read notes.txt."}]
visible = {**run(messages, NoAsker(), model, tools=canned, gate=yes_gate()), "ran": dump(ran),
           "third": dump(messages[2:3])}
ids = [f"toolu_{hexes(12)}" for _ in range(4)]
paths = [f"dir_{hexes(4)}/file_{n}.txt" for n in range(4)]
model = Model([
    reply(tool_use(ids[0], "read_file", {"path": paths[0]})),
    reply(text("Two more."), tool_use(ids[1], "read_file", {"path": paths[1]}),
          tool_use(ids[2], "list_files", {"path": paths[2]})),
    reply(tool_use(ids[3], "read_file", {"path": paths[3]})),
    reply(text("That is everything.")),
])
messages = [{"role": "user", "content": "Read them all."}]
hidden = run(messages, NoAsker(), model, tools=canned, gate=yes_gate())
observe(visible=visible, hidden=hidden, ids=ids, paths=paths, messages=dump(messages), seen=dump(model.seen))
'''


def judge_results_by_id(got: dict, ref: dict) -> bool:
    visible, hidden = got["visible"], got["hidden"]
    if "raised" in visible or visible["ran"] != ref["visible"]["ran"] or visible["third"] != ref["visible"]["third"]:
        return False
    results = [b for m in got["messages"] if isinstance(m, dict) and m.get("role") == "user"
               and isinstance(m.get("content"), list) for b in m["content"]]
    if "raised" in hidden or [r.get("tool_use_id") if isinstance(r, dict) else None for r in results] != ref["ids"]:
        return False
    for r, p in zip(results, ref["paths"]):
        if r.get("type") != "tool_result" or r.get("content") != f"contents of {p}" or r.get("is_error", False) is not False:
            return False
    try:
        next_call = got["seen"][1][-1]["content"][0]["tool_use_id"]
    except (IndexError, KeyError, TypeError):
        return False
    return next_call == ref["ids"][0] and _status(hidden) == "done"


TOOL_ERROR = PRELUDE + '''
def missing(name, input):
    raise FileNotFoundError(f"No such file: {input['path']}")


model = Model([reply(tool_use("toolu_err_1", "read_file", {"path": "missing.txt"})), reply(text("That file is missing."))])
messages = [{"role": "user", "content": "Read missing.txt."}]
visible = {**run(messages, NoAsker(), model, tools=missing, gate=yes_gate()), "calls": model.calls,
           "messages": dump(messages)}
n = rng.randrange(10**6)
errors = {
    f"a_{n}.py": ValueError(f"old_string occurs 2 times in a_{n}.py: include more of the surrounding lines"),
    f"slow_{n}": TimeoutError(f"Command timed out after 30 seconds: sleep {n}"),
    f"odd_{n}": RuntimeError(f"something unusual happened, code {n}"),
}


def mixed(name, input):
    key = input.get("path")
    if key in errors:
        raise errors[key]
    return f"fine: {key}"


model = Model([
    reply(tool_use("toolu_m1", "read_file", {"path": f"a_{n}.py"}), tool_use("toolu_m2", "read_file", {"path": "ok.txt"}),
          tool_use("toolu_m3", "list_files", {"path": f"slow_{n}"})),
    reply(tool_use("toolu_m4", "read_file", {"path": f"odd_{n}"})),
    reply(text("I have seen the errors.")),
])
messages = [{"role": "user", "content": "Try these."}]
hidden = {**run(messages, NoAsker(), model, tools=mixed, gate=yes_gate()), "calls": model.calls,
          "results": dump(results(messages)), "seen": dump(model.seen)}
observe(visible=visible, hidden=hidden, errors=[str(errors[k]) for k in (f"a_{n}.py", f"slow_{n}", f"odd_{n}")])
'''


def _carries(content, message: str) -> bool:
    return message in (content if isinstance(content, str) else str(content))


def judge_tool_error(got: dict, ref: dict) -> bool:
    visible, hidden = got["visible"], got["hidden"]
    try:
        first = visible["messages"][2]["content"][0]
    except (IndexError, KeyError, TypeError):
        return False
    content = first.get("content", "") if isinstance(first, dict) else None
    if (not isinstance(first, dict) or first.get("is_error") is not True
            or not (isinstance(content, (str, list)) and "missing.txt" in content)
            or visible["calls"] != 2 or _status(visible) != "done"):
        return False
    results, (a, slow, odd) = hidden["results"], ref["errors"]
    if len(results) != 4 or not all(isinstance(r, dict) for r in results):
        return False
    for r, message in ((results[0], a), (results[2], slow), (results[3], odd)):
        if r.get("is_error") is not True or message not in str(_python_str(r.get("content"))):
            return False
    if results[1].get("content") != "fine: ok.txt" or results[1].get("is_error", False) is not False:
        return False
    try:
        last = hidden["seen"][-1][-1]["content"][-1].get("content")
    except (IndexError, KeyError, TypeError, AttributeError):
        return False
    return hidden["calls"] == 3 and _status(hidden) == "done" and odd in str(_python_str(last))


DECLINED = PRELUDE + '''
events = []


def recording_tool(name, input):
    events.append(["run", name])
    return f"ran {name}"


def gate_saying(*answers):
    answers = list(answers)

    async def gate(ask, name, input):
        events.append(["ask", name])
        return answers.pop(0)
    return gate


model = Model([reply(tool_use("toolu_no_1", "bash", {"command": "rm -rf build"})), reply(text("All right, I won't."))])
messages = [{"role": "user", "content": "Clean up."}]
outcome = run(messages, NoAsker(), model, tools=recording_tool, gate=gate_saying(False))
visible = {**outcome, "events": dump(events), "messages": dump(messages), "calls": model.calls}
asker = NoAsker()
each = []
for name, tool_input in (("write_file", {"path": f"new_{hexes(6)}.py", "content": "x = 1\\n"}),
                         ("edit_file", {"path": "app.py", "old_string": "a", "new_string": f"b{hexes(6)}"}),
                         ("bash", {"command": f"touch sentinel_{hexes(6)}"})):
    events.clear()
    calls = []

    async def gate(ask, name, input):
        calls.append([id(ask), name, dump(input)])
        events.append(["ask", name])
        return False

    tool_id = f"toolu_{hexes(10)}"
    messages = [{"role": "user", "content": f"Use {name}."}]
    outcome = run(messages, asker, Model([reply(tool_use(tool_id, name, tool_input)), reply(text("OK."))]),
                  tools=recording_tool, gate=gate)
    each.append({**outcome, "name": name, "input": dump(tool_input), "events": dump(events), "calls": calls,
                 "messages": dump(messages)})
events.clear()
model = Model([
    reply(tool_use("toolu_w", "write_file", {"path": "x.txt", "content": "x"}),
          tool_use("toolu_b", "bash", {"command": "echo yes"})),
    reply(tool_use("toolu_e", "edit_file", {"path": "x.txt", "old_string": "x", "new_string": "y"})),
    reply(text("Done.")),
])
messages = [{"role": "user", "content": "Go."}]
outcome = run(messages, NoAsker(), model, tools=recording_tool, gate=gate_saying(False, True, True))
mixed = {**outcome, "events": dump(events), "results": dump(results(messages))}
observe(visible=visible, each=each, asker=id(asker), mixed=mixed)
'''


def _first_result(messages: list):
    try:
        block = messages[2]["content"][0]
    except (IndexError, KeyError, TypeError):
        return None
    return block if isinstance(block, dict) else None


def _declined(result) -> bool:
    return result is not None and "declined" in str(_python_str(result.get("content"))).lower()


def judge_declined(got: dict, ref: dict) -> bool:
    visible = got["visible"]
    result = _first_result(visible["messages"])
    if (visible["events"] != [["ask", "bash"]] or not _declined(result) or result.get("is_error")
            or visible["calls"] != 2):
        return False
    if len(got["each"]) != len(ref["each"]):
        return False
    for mine, truth in zip(got["each"], ref["each"]):
        result = _first_result(mine["messages"])
        if (["run", truth["name"]] in mine["events"] or mine["calls"] != [[got["asker"], truth["name"], truth["input"]]]
                or not _declined(result) or result.get("is_error", False) is not False):
            return False
    events, results = got["mixed"]["events"], got["mixed"]["results"]
    if ["run", "write_file"] in events or len(results) != 3 or not all(isinstance(r, dict) for r in results):
        return False
    for name in ("bash", "edit_file"):
        if ["run", name] not in events or ["ask", name] not in events:
            return False
        if events.index(["ask", name]) > events.index(["run", name]):
            return False
    return (_declined(results[0]) and not results[0].get("is_error")
            and results[1].get("content") == "ran bash" and not results[1].get("is_error")
            and results[2].get("content") == "ran edit_file")


UNGATED = PRELUDE + '''
asked = []


async def recording_gate(ask, name, input):
    asked.append(name)
    return True


asker = NoAsker()
model = Model([reply(tool_use("toolu_u1", "list_files", {"path": "."})),
               reply(tool_use("toolu_u2", "read_file", {"path": "a.txt"})), reply(text("Seen it."))])
messages = [{"role": "user", "content": "Look."}]
outcome = run(messages, asker, model, tools=lambda name, input: f"output of {name}", gate=recording_gate)
visible = {**outcome, "asked": list(asked), "prompts": len(asker.prompts)}
asked.clear()
asker = NoAsker()
model = Model([
    reply(tool_use("toolu_g1", "read_file", {"path": "a.txt"}), tool_use("toolu_g2", "bash", {"command": "ls"}),
          tool_use("toolu_g3", "list_files", {"path": "."}), tool_use("toolu_g4", "search_web", {"query": "x"})),
    reply(text("Done.")),
])
messages = [{"role": "user", "content": "Mix."}]
outcome = run(messages, asker, model, tools=lambda name, input: f"output of {name}", gate=recording_gate)
hidden = {**outcome, "asked": list(asked), "prompts": len(asker.prompts), "results": dump(results(messages))}
observe(visible=visible, hidden=hidden)
'''


def judge_ungated(got: dict, ref: dict) -> bool:
    visible, hidden = got["visible"], got["hidden"]
    r = hidden["results"]
    return (visible["asked"] == [] and visible["prompts"] == 0
            and hidden["asked"] == ["bash"] and hidden["prompts"] == 0
            and len(r) == 4 and isinstance(r[3], dict) and r[3].get("content") == "output of search_web")


ONE_MESSAGE = PRELUDE + '''
model = Model([reply(tool_use("toolu_p1", "read_file", {"path": "a.txt"}), tool_use("toolu_p2", "read_file", {"path": "b.txt"})),
               reply(text("Both read."))])
messages = [{"role": "user", "content": "Read a.txt and b.txt."}]
visible = {**run(messages, NoAsker(), model, tools=lambda name, input: f"text of {input.get('path')}", gate=yes_gate()),
           "messages": dump(messages)}
tag = hexes(6)


def various(name, input):
    if name == "bash":
        return f"ran {input['command']}"
    return f"text of {input.get('path')}"


model = Model([
    reply(text("Three things."), tool_use("toolu_q1", "read_file", {"path": f"one_{tag}.txt"}),
          tool_use("toolu_q2", "bash", {"command": f"make {tag}"}), tool_use("toolu_q3", "list_files", {"path": tag})),
    reply(tool_use("toolu_q4", "read_file", {"path": f"c_{tag}.txt"}), tool_use("toolu_q5", "read_file", {"path": f"d_{tag}.txt"})),
    reply(text("Finished.")),
])
messages = [{"role": "user", "content": "Do three things."}]
hidden = {**run(messages, NoAsker(), model, tools=various, gate=yes_gate()), "messages": dump(messages),
          "seen": [len(s) for s in model.seen]}
observe(visible=visible, hidden=hidden, tag=tag)
'''


def _contents(message) -> list | None:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or not all(isinstance(r, dict) for r in content):
        return None
    return [r.get("content") for r in content]


def judge_one_message(got: dict, ref: dict) -> bool:
    visible, hidden, tag = got["visible"], got["hidden"], ref["tag"]
    if "raised" in visible or _roles(visible["messages"]) != ["user", "assistant", "user", "assistant"]:
        return False
    if _contents(visible["messages"][2]) != ["text of a.txt", "text of b.txt"]:
        return False
    messages = hidden["messages"]
    if "raised" in hidden or _roles(messages) != ["user", "assistant"] * 3:
        return False
    first = _contents(messages[2])
    return (first is not None and [_python_str(c) for c in first] == [f"text of one_{tag}.txt", f"ran make {tag}", f"text of {tag}"]
            and _contents(messages[4]) == [f"text of c_{tag}.txt", f"text of d_{tag}.txt"]
            and hidden["seen"] == [1, 3, 5] and _status(hidden) == "done")


CALLERS_LIST = PRELUDE + '''
history = [{"role": "user", "content": "What files are here?"}]
same_list = history
visible = run(history, NoAsker(), Model([reply(tool_use("toolu_l1", "list_files", {"path": "."})), reply(text("Just a.txt."))]),
              tools=lambda name, input: "a.txt", gate=yes_gate())
visible["length"] = len(same_list)
earlier = [{"role": "user", "content": "Hello."},
           {"role": "assistant", "content": reply(text("Hi! What shall we do?")).content},
           {"role": "user", "content": "List the files, then read one."}]
history = list(earlier)
model = Model([reply(tool_use("toolu_l2", "list_files", {"path": "."})),
               reply(tool_use("toolu_l3", "read_file", {"path": "a.txt"})), reply(text("a.txt says a."))])
hidden = run(history, NoAsker(), model, tools=lambda name, input: "a.txt", gate=yes_gate())
hidden.update(length=len(history), kept=[id(m) for m in history[:3]], earlier=[id(m) for m in earlier],
              seen=[len(s) for s in model.seen])
observe(visible=visible, hidden=hidden)
'''


def judge_callers_list(got: dict, ref: dict) -> bool:
    visible, hidden = got["visible"], got["hidden"]
    return (visible["length"] == 4 and hidden["length"] == 8 and hidden["kept"] == hidden["earlier"]
            and hidden["seen"] == [3, 5, 7])


TURN_LIMIT = PRELUDE + '''
class AsksForever:
    """A model that asks for `per_call` listings on every call, and never stops."""

    def __init__(self, per_call=1):
        self.calls, self.per_call = 0, per_call

    async def __call__(self, messages):
        self.calls += 1
        if self.calls > 60:
            raise AssertionError("the model was called more than 60 times: agent_loop has no turn limit")
        return reply(*[tool_use(f"toolu_forever_{self.calls}_{n}", "list_files", {"path": "."}) for n in range(self.per_call)])


def limited(model, **limit):
    outcome = run([{"role": "user", "content": "List."}], NoAsker(), model, tools=lambda name, input: "a.txt",
                  gate=yes_gate(), **limit)
    return {**outcome, "calls": model.calls}


runs = []
for limit, per_call in ((2, 1), (1, 1), (rng.choice((3, 4, 5)), 2), (rng.choice((7, 8, 9)), 1)):
    runs.append({**limited(AsksForever(per_call), max_turns=limit), "limit": limit})
default = limited(AsksForever())
limit = rng.choice((2, 3, 4))
model = Model([reply(tool_use(f"toolu_fin_{i}", "list_files", {"path": "."})) for i in range(limit - 1)] + [reply(text("Done."))])
finishing = {**limited(model, max_turns=limit), "limit": limit}
observe(runs=runs, default=default, finishing=finishing)
'''


def judge_turn_limit(got: dict, ref: dict) -> bool:
    if len(got["runs"]) != len(ref["runs"]):
        return False
    for mine, truth in zip(got["runs"], ref["runs"]):
        if mine["calls"] != truth["limit"] or _status(mine) != "max_turns":
            return False
    default, finishing = got["default"], got["finishing"]
    return (default["calls"] == ref["default"]["calls"] == 25 and _status(default) == "max_turns"
            and finishing["calls"] == ref["finishing"]["limit"] and _status(finishing) == "done")


CELSIUS = PRELUDE + '''
data = json.loads(Path("fixtures/celsius_trace.json").read_text(encoding="utf-8"))
replies = [Message.model_validate(r) for r in data["replies"]]
tool_output = {"read_file": data["entries"][2]["content"][0]["content"],
               "edit_file": data["entries"][4]["content"][0]["content"]}


def gate_from(answers):
    answers = list(answers)

    async def gate(ask, name, input):
        return (answers.pop(0) if answers else "y").strip().lower() in ("y", "yes")
    return gate


messages = [{"role": "user", "content": data["request"]}]
visible = {**run(messages, NoAsker(), Model(replies), tools=lambda name, input: tool_output[name],
                 gate=gate_from(data["answers"])), "messages": dump(messages)}
new = {"toolu_01A": f"toolu_{hexes(12)}", "toolu_01B": f"toolu_{hexes(12)}", "Fixed.": f"Fixed ({hexes(6)})."}


def rename(value):
    text = json.dumps(value)
    for old, fresh in new.items():
        text = text.replace(old, fresh)
    return json.loads(text)


model = Model([Message.model_validate(rename(r.model_dump(mode="json"))) for r in replies])
messages = [{"role": "user", "content": data["request"]}]
hidden = {**run(messages, NoAsker(), model, tools=lambda name, input: tool_output[name], gate=gate_from(["y"])),
          "messages": dump(messages), "seen": dump(model.seen)}
observe(visible=visible, hidden=hidden, entries=data["entries"], renamed=rename(data["entries"]))
'''


def judge_celsius(got: dict, ref: dict) -> bool:
    visible, hidden, expected = got["visible"], got["hidden"], ref["renamed"]
    return (visible["messages"] == ref["entries"] and _status(visible) == "done"
            and hidden["messages"] == expected and hidden["seen"] == [expected[:1], expected[:3], expected[:5]])


SCENARIOS = [
    Scenario("l05_call_model_sends_five_fields", FIVE_FIELDS_STAND_IN, judge_five_fields_stand_in),
    Scenario("l05_call_model_sends_five_fields", FIVE_FIELDS, judge_five_fields),
    Scenario("l05_call_model_reuses_client", REUSES_STAND_IN, judge_reuses_stand_in),
    Scenario("l05_call_model_reuses_client", REUSES, judge_reuses),
    *[_answer_scenario(n) for n in range(1, 7)],
    Scenario("l05_text_reply_ends", TEXT_ENDS, judge_text_ends),
    Scenario("l05_assistant_turn_verbatim", VERBATIM, judge_verbatim),
    Scenario("l05_results_matched_by_id", RESULTS_BY_ID, judge_results_by_id),
    Scenario("l05_tool_error_becomes_result", TOOL_ERROR, judge_tool_error),
    Scenario("l05_declined_tool_never_runs", DECLINED, judge_declined),
    Scenario("l05_ungated_tools_skip_gate", UNGATED, judge_ungated),
    Scenario("l05_one_user_message_for_all_results", ONE_MESSAGE, judge_one_message),
    Scenario("l05_callers_list_mutated", CALLERS_LIST, judge_callers_list),
    Scenario("l05_turn_limit", TURN_LIMIT, judge_turn_limit),
    Scenario("l05_celsius_trace_matches", CELSIUS, judge_celsius),
]
