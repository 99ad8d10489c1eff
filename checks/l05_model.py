"""Lecture 05's rules for call_model (nano/model.py): the drives and judges of checks/l05.py's
first two cells.

call_model talks through the real anthropic SDK to nano/server.py's MessagesServer, run by the
check: what it sent is what the server received. A client takes its key from the environment
when it is built, so the key each request carried says which client sent it: the key is set
only after a fresh import of nano/model.py (a client built at import has none), changed between
two calls (a client built again sends the new one), and a client of the check's with a key of
its own is put in _client (a call_model that ignores it sends another).
"""

from checks import doubles
from checks.l05_seen import at, equal, first, listed, part, raised

FIVE = ["max_tokens", "messages", "model", "system", "tools"]
KEY = "sk-test-not-a-real-key"  # the key call_model's client must read from the environment
SECOND_KEY = "sk-test-set-after-the-first-call"  # a client built after the first call would send it
READY_KEY = "sk-test-ready-client"  # the key of a client put in _client before call_model runs
ANTHROPIC = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_LOG",
             "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_BETA", "ANTHROPIC_MODEL")


def testing():
    return doubles.given("testing")


def pointed_at(subject, url):
    """Point the subject's SDK at `url` with the test key, until the rule's run ends."""
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


def failed(calls):
    """The sentence for the first of `calls` (outcomes of call_model) that raised, if one did."""
    for call in listed(calls):
        for message in raised("call_model", call, 1):
            yield message
            return


# ---------------------------------------------------------------------------------------------
# l05_call_model_sends_five_fields

READ = 1_000_000  # bytes of request bodies a behaviour's server reads in all: its few requests need far fewer


def serving(answers):
    """nano/server.py's MessagesServer for `answers`, reading at most READ bytes of bodies in all:
    what the hand-in sends it is kept in the grader's process."""
    return doubles.given("server").MessagesServer(answers, max_read=READ)


def drive_one_call(subject, inputs):
    """One call_model, from an empty _client, through the SDK to the server: the request that
    arrived, and what call_model returned."""
    t = testing()
    answer = t.reply(t.text("the reply"))
    with serving([answer]) as server:
        pointed_at(subject, subject.serve(server))
        subject.set("nano.model._client", None)
        got = subject.call("nano.model.call_model", [{"role": "user", "content": "hi"}])
        return {"requests": received(server), "got": got, "id": answer.id}


def judge_one_call(inputs, seen):
    requests, got = listed(seen.get("requests")), part(seen, "got")
    if len(requests) != 1:
        yield from raised("call_model", got, 1)
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
    """For each case, two call_models through the real SDK to a server of its own, with MODEL,
    MAX_TOKENS and SYSTEM_PROMPT set to the case's: the requests that arrived, what call_model
    returned, and nano.tools.TOOLS as the subject holds it (model.py may reach it by any name)."""
    t = testing()
    assistant = t.reply(t.text("Reading."), t.tool_use("toolu_t1", "read_file", {"path": "a.txt"}))
    second_messages = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": assistant.model_dump(mode="json", exclude_none=True)["content"]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_t1", "content": "hi", "is_error": False}]},
    ]
    runs = []
    for case in inputs["cases"]:
        sent = [[{"role": "user", "content": case["ping"]}], second_messages]
        answers = [t.reply(t.text(case["token"])), t.reply(t.text(case["token"]))]
        with serving(answers) as server:
            pointed_at(subject, subject.serve(server))
            subject.set("nano.model._client", None)
            subject.set("nano.model.MODEL", case["model"])
            subject.set("nano.model.MAX_TOKENS", case["max_tokens"])
            subject.set("nano.model.SYSTEM_PROMPT", case["system"])
            returned = [subject.call("nano.model.call_model", messages) for messages in sent]
            tools = subject.read("nano.tools.TOOLS")
            runs.append({"requests": received(server), "returned": returned, "sent": sent,
                         "tools": tools.get("value") if "raised" not in tools else {"unreadable": first(tools.get("raised"))}})
    return {"runs": runs}


def judge_five_fields(inputs, seen):
    runs = listed(seen.get("runs"))
    for index, case in enumerate(inputs["cases"]):
        run = part(runs, index)
        yield from five_fields(case, run)


def five_fields(case, run):
    requests, returned = listed(run.get("requests")), listed(run.get("returned"))
    yield from failed(returned)
    if len(requests) != 2:
        yield f"two calls to call_model must send two requests; the server saw {len(requests)} (section 1)"
        return
    for request, sent in zip(requests, listed(run.get("sent"))):
        path, body = at(request, 0), at(request, 1)
        if not isinstance(path, str) or path.split("?")[0] != "/v1/messages":
            yield f"call_model must use client.messages.create (request went to {path}) (section 1)"
        if not isinstance(body, dict):
            yield "call_model must send a JSON request body (section 1)"
            continue
        if sorted(str(k) for k in body) != FIVE:
            yield f"call_model must send exactly model, max_tokens, system, tools and messages; it sent {sorted(str(k) for k in body)} (section 1)"
        if body.get("model") != case["model"]:
            yield "model= must be MODEL, the module's setting, not a copy of its value (section 1)"
        if not equal(body.get("max_tokens"), case["max_tokens"]) or type(body.get("max_tokens")) is not int:
            yield "max_tokens= must be MAX_TOKENS, the module's setting (section 1)"
        if body.get("system") != case["system"]:
            yield "system= must be SYSTEM_PROMPT, the module's setting (section 1)"
        if not equal(body.get("tools"), run.get("tools")):
            yield "tools= must be TOOLS, all five schemas (section 1)"
        if not equal(body.get("messages"), sent):
            yield "messages= must be the list call_model was given, unchanged (section 1)"
    if len(returned) != 2 or not all(isinstance(r, dict) and r.get("type") == "Message"
                                     and at(r, "value", "content", 0, "text") == case["token"] for r in returned):
        yield "call_model must return the Message that messages.create returned (section 1)"


# ---------------------------------------------------------------------------------------------
# l05_call_model_reuses_client

def ready_client(subject, url):
    """An AsyncAnthropic client built in the subject, with a key of its own: its Ref, or None.
    Its HTTP client verifies no certificate (the server is plain HTTP on 127.0.0.1), which spares
    loading the certificate store: the one slow step of building a client."""
    http = subject.call("httpx.AsyncClient", verify=False, keep=True).get("ref")
    http = doubles.Ref(http) if isinstance(http, int) and not isinstance(http, bool) else None
    built = subject.call("anthropic.AsyncAnthropic", api_key=READY_KEY, base_url=url, http_client=http, keep=True)
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
    with serving([t.reply(t.text("pong"))] * 3) as server:
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
    raised = listed(seen.get("imported"))
    if raised:
        yield ("importing nano/model.py with no ANTHROPIC_ variable set must build no client (build it in "
               f"call_model), and raise nothing; it raised {str(raised[0])[:100]}: {str(seen.get('message'))[:300]} "
               "(section 1)")
        return
    if seen.get("fresh_client", "unread") is not None:
        yield "importing nano/model.py must not build a client: build it in call_model (section 1)"
        return
    if seen.get("late_keys") != [KEY]:
        if part(seen, "late").get("raised"):  # it fails with a client ready too: not the import
            yield from failed(seen.get("calls"))
        yield ("importing nano/model.py must not build a client: build it in call_model, which reads "
               f"ANTHROPIC_API_KEY when it first runs; a fresh copy set up afterwards sent "
               f"{len(listed(seen.get('late_keys')))} requests with the key ({shown(seen.get('late'))}) (section 1)")
    if seen.get("ready") is not True:
        return  # the check's own client could not be built: nothing to judge it by
    if seen.get("keys") != [READY_KEY, READY_KEY] or seen.get("kept") is not True:
        yield "when _client already holds a client, call_model must use it and keep it (section 1)"


def module_client(subject, module):
    """nano.model._client, named by the subject: (its type's name, its name there)."""
    if module is None:
        return None, None
    got = subject.call("builtins.getattr", module, "_client", keep=True)
    return got.get("type"), got.get("ref")


def drive_reuses_client(subject, inputs):
    """For each case, three call_models to a server of its own. The first two from an empty
    _client, with the key in the environment changed between them: a client is given its key
    when it is built, so the key each request carried says which client sent it (and the names
    the subject gives what _client holds after each call say the same from inside). The third,
    the case's text, with a client of the check's (a key of its own) already in _client."""
    t = testing()
    runs = []
    for case in inputs["cases"]:
        with serving([t.reply(t.text("pong"))] * 3) as server:
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
            calls.append(subject.call("nano.model.call_model", [{"role": "user", "content": case["third"]}]))
            after = subject.read("nano.model._client")
            runs.append({"calls": calls, "keys": [r[2] for r in received(server)], "first_type": first_type,
                         "second_is_first": first_name is not None and first_name == second_name,
                         "ready": ready is not None,
                         "third_is_ready": ready is not None and after.get("ref") == ready.number})
    return {"runs": runs}


def judge_reuses_client(inputs, seen):
    runs = listed(seen.get("runs"))
    for index, _ in enumerate(inputs["cases"]):
        yield from reuses_client(part(runs, index))


def reuses_client(run):
    yield from failed(run.get("calls"))
    keys = listed(run.get("keys"))
    if len(keys) != 3:
        yield f"three calls must send three requests; the server saw {len(keys)} (section 1)"
    if run.get("first_type") != "AsyncAnthropic":
        yield "after the first call, _client must hold the AsyncAnthropic client it built (section 1)"
    if at(keys, 0) != KEY:
        yield "call_model must build its client with AsyncAnthropic(), which reads ANTHROPIC_API_KEY (section 1)"
    elif at(keys, 1) != KEY:
        yield ("two calls built 2 clients: the second request carried a key set after the first call, which only "
               "a client built after it reads; build one, once, and reuse it (section 1)")
    elif run.get("second_is_first") is not True:
        yield "the second call must reuse the client in _client, not build a new one (section 1)"
    if run.get("ready") is True and (run.get("third_is_ready") is not True or at(keys, 2) != READY_KEY):
        yield "when _client already holds a client, call_model must use it (section 1)"
