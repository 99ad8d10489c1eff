"""A local stand-in for Anthropic's Messages API: scripted replies over real HTTP, on loopback.

Given, for tests and demos. Point the SDK at it (ANTHROPIC_BASE_URL=server.url) and it answers
`POST /v1/messages` the way the API does: it checks the key and the request, replies with the
next Message of its script (or the next scripted error: 401, 404, 429, 529, 500), and records
every request in `server.requests`. Like the API with thinking on (the default of today's models),
it wants each thinking block it sent back unchanged, with the `system`, `tools` and earlier
messages it was produced after (its prefix, which the API checks too), and the latest assistant
turn of a tool-use loop to keep the thinking its reply began with; otherwise it answers 400. A
scripted reply whose usage is all zero gets a plausible one (`estimate_usage`, a rough count of
characters, not the tokenizer's), prompt caching included, so that `reply.usage` grows turn by
turn as the API's does. `MessagesServer.replaying(recording)` plays back a session
saved by `Recorder`, a pass-through to the real API that keeps every exchange (`python -m nano
--record FILE` and `--replay FILE`). Standard library only; nothing here imports the SDK.
"""

import copy
import itertools
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from nano.protocol import ProtocolError, check_messages, field

HOST = "127.0.0.1"  # loopback only: nothing outside this machine can reach the server
MAX_BODY = 4_000_000  # bytes in one request body; a scripted session needs far fewer
MAX_READ = 256_000_000  # bytes of request bodies one server reads in all; past them, each is refused
TIMEOUT = 10  # seconds a connection may sit idle before the server drops it
UPSTREAM_TIMEOUT = 600  # seconds the Recorder waits for the real API, as long as the SDK does
POLL = 0.02  # seconds between checks for stop(); the standard library's 0.5 makes each stop slow
CHARS_PER_TOKEN = 4  # a rough rule for English text and JSON: today's tokenizer counts more tokens
# (client.messages.count_tokens asks the API for the real count)
LOOKBACK = 20  # blocks before a cache breakpoint where the API looks for a cached prefix

# The API's error types by status code, each with the message the API gives when none is scripted.
ERRORS: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "The request is not valid."),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use the specified "
                              "resource."),
    404: ("not_found_error", "model: {model}"),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: ("rate_limit_error", "This request would exceed your organization's rate limit. "
                              "Please wait and try again."),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}

# Top-level fields the Messages API knows; any other is rejected, as the API does.
REQUEST_FIELDS = {
    "model", "messages", "max_tokens", "system", "tools", "tool_choice", "stream", "metadata",
    "stop_sequences", "temperature", "top_p", "top_k", "thinking", "service_tier", "container",
    "cache_control", "diagnostics", "inference_geo", "output_config", "speed", "mcp_servers",
    "context_management", "user_profile_id", "workspace_id",
}
# The fields a content block may carry when it is sent back to the API, by block type.
BLOCK_FIELDS = {
    "text": {"type", "text", "cache_control", "citations"},
    "tool_use": {"type", "id", "name", "input", "cache_control", "caller", "toolset_name"},
    "tool_result": {"type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"},
    "image": {"type", "source", "cache_control", "transformations"},
    "document": {"type", "source", "cache_control", "citations", "context", "title"},
    "thinking": {"type", "thinking", "signature"},
    "redacted_thinking": {"type", "data"},
}


@dataclass(frozen=True)
class Failure:
    """A scripted error, in place of a reply: Failure(429, retry_after=0.01).

    The server answers with `status`, the API's error type for it and `message` (or the API's
    usual message), plus a `retry-after` header when `retry_after` (seconds) is given.
    """

    status: int
    message: str | None = None
    retry_after: float | None = None

    def __post_init__(self) -> None:
        if self.status not in ERRORS:
            raise ValueError(f"Failure({self.status}): the API's error statuses are "
                             f"{', '.join(map(str, sorted(ERRORS)))}")


@dataclass(frozen=True)
class Request:
    """One request as the server got it: headers (names lowercased), parsed body, status sent."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON, or None when there was none or it did not parse
    status: int


class InvalidRequest(ValueError):
    """A request the API would answer with 400 invalid_request_error; the message says why."""


def check_request(body: Any) -> None:
    """Raise InvalidRequest, in plain words, if the API would reject this Messages request body.

    The rules of the conversation itself (roles, tool_use answered by tool_result) are
    `nano.protocol.check_messages`; this adds the fields around it and the shape of each block.
    """
    if not isinstance(body, dict):
        raise InvalidRequest(f"The request body must be a JSON object, not {type(body).__name__}.")
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            raise InvalidRequest(f"{name}: Field required. Every request needs model, max_tokens "
                                 "and messages.")
    extra = sorted(set(body) - REQUEST_FIELDS)
    if extra:
        raise InvalidRequest(f"{extra[0]}: Extra inputs are not permitted.")
    if not isinstance(body["model"], str) or not body["model"]:
        raise InvalidRequest("model: must be a model id, a non-empty string.")
    tokens = body["max_tokens"]
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
        raise InvalidRequest(f"max_tokens: must be a positive whole number, not {tokens!r}.")
    if body.get("stream"):
        raise InvalidRequest("stream: this local server does not stream; send the request "
                             "without stream=True.")
    if "system" in body:
        _check_system(body["system"])
    tools = body.get("tools", [])
    _check_tools(tools)

    messages = body["messages"]
    if not isinstance(messages, list) or not messages:
        raise InvalidRequest("messages: must be a list with at least one message.")
    try:
        check_messages(messages)
    except ProtocolError as exc:
        raise InvalidRequest(str(exc)) from None
    for i, message in enumerate(messages):
        if isinstance(message["content"], list):
            for j, block in enumerate(message["content"]):
                _check_block(block, f"messages[{i}].content[{j}]")
    if messages[-1]["role"] != "user":
        raise InvalidRequest(f"messages[{len(messages) - 1}] is an assistant turn; the last "
                             "message must be the user's, so that the model has something to "
                             "answer.")
    uses_tools = any(field(block, "type") in ("tool_use", "tool_result")
                     for message in messages if isinstance(message["content"], list)
                     for block in message["content"])
    if uses_tools and not tools:
        raise InvalidRequest("Requests which include tool_use or tool_result blocks must define "
                             "tools: send the same tools on every call.")


def _check_system(system: Any) -> None:
    if isinstance(system, str):
        return
    if not isinstance(system, list):
        raise InvalidRequest(f"system: must be a string or a list of text blocks, not "
                             f"{type(system).__name__}.")
    for j, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            raise InvalidRequest(f"system[{j}]: must be a text block, like "
                                 '{"type": "text", "text": "..."}.')
        _check_block(block, f"system[{j}]")


def _check_tools(tools: Any) -> None:
    if not isinstance(tools, list):
        raise InvalidRequest(f"tools: must be a list of tool definitions, not "
                             f"{type(tools).__name__}.")
    names: set[str] = set()
    for j, tool in enumerate(tools):
        where = f"tools[{j}]"
        if not isinstance(tool, dict):
            raise InvalidRequest(f"{where}: must be an object with name, description and "
                                 "input_schema.")
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidRequest(f"{where}.name: Field required, a non-empty string.")
        if name in names:
            raise InvalidRequest(f"{where}: tool names must be unique, and {name!r} appears twice.")
        names.add(name)
        if tool.get("type", "custom") != "custom":
            continue  # a tool the API runs itself (web search, ...) has no input_schema
        if "description" in tool and not isinstance(tool["description"], str):
            raise InvalidRequest(f"{where}.description: must be a string.")
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise InvalidRequest(f'{where}.input_schema: Field required, a JSON schema with '
                                 f'"type": "object" (tool {name!r}).')


def _check_block(block: Any, where: str) -> None:
    """The fields of one content block: the ones it needs are there, and it has no others."""
    if not isinstance(block, dict):
        raise InvalidRequest(f"{where}: a content block must be a JSON object.")
    kind = block.get("type")
    if kind not in BLOCK_FIELDS:
        return  # check_messages has already said which block types a turn may hold
    extra = sorted(set(block) - BLOCK_FIELDS[kind])
    if extra:
        raise InvalidRequest(f"{where}.{extra[0]}: Extra inputs are not permitted.")
    if kind == "text" and not (isinstance(block.get("text"), str) and block["text"].strip()):
        raise InvalidRequest(f"{where}: text content blocks must contain non-whitespace text.")
    if kind == "tool_use" and not (isinstance(block.get("id"), str)
                                   and isinstance(block.get("name"), str)
                                   and isinstance(block.get("input"), dict)):
        raise InvalidRequest(f"{where}: a tool_use block needs an id and a name (strings) and an "
                             "input (an object).")
    if kind == "tool_result":
        content = block.get("content", "")
        if not isinstance(content, (str, list)):
            raise InvalidRequest(f"{where}.content: must be a string or a list of blocks.")
        for k, inner in enumerate(content if isinstance(content, list) else []):
            _check_block(inner, f"{where}.content[{k}]")


def _as_json(reply: Any) -> dict[str, Any]:
    """A scripted reply as the JSON the API would send: an SDK Message, or its JSON already."""
    if hasattr(reply, "model_dump"):
        reply = reply.model_dump(mode="json", exclude_none=True)
    if not isinstance(reply, Mapping):
        raise TypeError(f"a scripted reply is a Message (or its JSON) or a Failure, not "
                        f"{type(reply).__name__}")
    missing = [k for k in ("id", "type", "role", "content", "model", "usage") if k not in reply]
    if (missing or reply["type"] != "message" or reply["role"] != "assistant"
            or not isinstance(reply["content"], list)):
        raise ValueError(f"a scripted reply must be a Message: type 'message', role 'assistant', "
                         f"a list of content blocks, an id, a model and usage (missing: "
                         f"{', '.join(missing) or 'none'})")
    return copy.deepcopy(dict(reply))


class _Loopback:
    """Serving HTTP on 127.0.0.1 from a background thread; a subclass says how to `answer`."""

    port = 0  # 0: any free port
    max_body = MAX_BODY
    _httpd: "_HTTPServer | None" = None
    _thread: threading.Thread | None = None

    def answer(self, method: str, path: str, headers: dict[str, str],
               raw: bytes | None) -> tuple[int, dict[str, str], dict[str, Any]] | None:
        """The status, extra headers and JSON body for this request (None: hang up instead)."""
        raise NotImplementedError

    @property
    def url(self) -> str:
        """The base URL to give the SDK, e.g. http://127.0.0.1:54321."""
        if self._httpd is None:
            raise RuntimeError(f"the server is not running: use `with {type(self).__name__}(...)` "
                               "or start()")
        return f"http://{HOST}:{self._httpd.server_address[1]}"

    def start(self) -> Self:
        """Bind a port on loopback and serve from a background thread."""
        if self._httpd is None:
            self._httpd = _HTTPServer(self)
            self._thread = threading.Thread(target=self._httpd.serve_forever, args=(POLL,),
                                            name=f"nano-{type(self).__name__}", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close the port, and wait for the threads to finish."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()  # also waits for requests still being answered
            assert self._thread is not None
            self._thread.join()
            self._httpd = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()


class MessagesServer(_Loopback):
    """Serves POST /v1/messages on 127.0.0.1, answering each good request with the next slot.

        with MessagesServer(replies, api_key="test-key") as server:
            ... ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="test-key" ...
        server.requests  # every request it got, in order

    `replies`: one slot per request that passes the checks, each a Message (an SDK `Message`
    or its JSON) or a `Failure`; a request after the last slot gets a 500 that the SDK does not
    retry. `api_key`: the key to require (None accepts any key, but one must be sent).
    `models`: the model ids it knows (None: all); others get 404. `expect`: fields every request
    must carry with exactly these values, e.g. {"max_tokens": 16000}; a difference gets a 400.
    `conversations`: for each slot, the messages its request must carry (None: any); a request
    whose messages differ gets a 400 saying where, and the slot waits for a request that fits;
    `server.strayed` keeps what each such 400 said, and `server.unused` counts the slots left.
    A reply may carry thinking blocks (nano.testing.thinking); `thinking_kept` says what the
    server then checks of every later request.
    """

    def __init__(self, replies: Iterable[Any] = (), *, api_key: str | None = None,
                 models: Iterable[str] | None = None, expect: Mapping[str, Any] | None = None,
                 conversations: Sequence[list[Any] | None] = (), max_body: int = MAX_BODY,
                 max_read: int = MAX_READ, port: int = 0):
        self.script: list[Any] = [r if isinstance(r, Failure) else _as_json(r) for r in replies]
        self.api_key = api_key
        self.models = None if models is None else set(models)
        self.expect = json.loads(json.dumps(dict(expect or {})))  # tuples become lists, as in JSON
        self.conversations = list(conversations)
        self.max_body, self.max_read = max_body, max_read
        self.read = 0  # bytes of request bodies read so far (max_read)
        self.port = port
        self.requests: list[Request] = []
        self.strayed: list[str] = []  # why each request that left the recorded conversation did
        self._used = 0  # slots of the script answered so far
        self._signed: dict[str, str] = {}  # signature -> thinking text, of each thinking block sent
        self._thought: dict[str, list[Any]] = {}  # tool_use id -> the thinking of the reply asking
        self._prefix: dict[str, dict[str, Any]] = {}  # signature -> what the block was produced after
        self._ids = itertools.count(1)
        self._cache: set[str] = set()  # the prompt prefixes cached so far (estimate_usage)
        self._lock = threading.Lock()

    @classmethod
    def replaying(cls, recording: Mapping[str, Any], **options: Any) -> "MessagesServer":
        """A server that plays back a session saved by `Recorder` (`python -m nano --record`).

        Each recorded request is a slot: the next recorded reply if it got one, else its recorded
        error as a Failure; and each slot's request must carry the messages recorded for it. A
        recording without "requests" just serves its "replies", in order, to any request.
        """
        replies = list(recording["replies"])
        exchanges = recording.get("requests") or [{"status": 200} for _ in replies]
        answered = sum(exchange["status"] == 200 for exchange in exchanges)
        if answered != len(replies):
            raise ValueError(f"the recording has {answered} answered requests but "
                             f"{len(replies)} replies")
        answers = iter(replies)
        script = [next(answers) if exchange["status"] == 200 else
                  Failure(exchange["status"] if exchange["status"] in ERRORS else 500,
                          (exchange.get("error") or {}).get("message"))
                  for exchange in exchanges]
        conversations = [(exchange.get("body") or {}).get("messages") for exchange in exchanges]
        return cls(script, conversations=conversations, **options)

    @property
    def unused(self) -> int:
        """How many slots of the script no request has had yet."""
        with self._lock:
            return len(self.script) - self._used

    def answer(self, method: str, path: str, headers: dict[str, str],
               raw: bytes | None) -> tuple[int, dict[str, str], dict[str, Any]]:
        """The status, extra headers and JSON body the API would send for this request.

        `raw` is None when the body was too large to read. Every call is recorded; past MAX_READ
        bytes of bodies in all (max_read), a body is neither read nor kept, and answered as too large.
        """
        body: Any = None
        with self._lock:
            self.read += len(raw or b"")
            if self.read > self.max_read:
                raw = None
        if raw:
            try:
                body = json.loads(raw)
            except (ValueError, RecursionError):
                pass
        with self._lock:
            try:
                status, extra, payload = self._decide(method, path, headers, raw, body)
            except Exception as exc:  # a bug here must not look like a network failure
                status, extra, payload = _error(500, f"The local server failed: {exc!r}",
                                                {"x-should-retry": "false"})
            request_id = f"req_local_{next(self._ids):04d}"
            self.requests.append(Request(method, path, headers, body, status))
        if payload.get("type") == "error":
            payload["request_id"] = request_id
        return status, {"request-id": request_id, **extra}, payload

    def _decide(self, method: str, path: str, headers: dict[str, str], raw: bytes | None,
                body: Any) -> tuple[int, dict[str, str], dict[str, Any]]:
        if (method, path.split("?")[0]) != ("POST", "/v1/messages"):
            return _error(404, f"Not found: {method} {path}; this server answers only "
                               "POST /v1/messages.")
        if raw is None:
            return _error(413, f"The request body is larger than this server's limit of "
                               f"{self.max_body} bytes.")
        key = headers.get("x-api-key")
        bearer = headers.get("authorization", "")
        if key is None and bearer.lower().startswith("bearer "):
            key = bearer[len("bearer "):].strip()
        if not key:
            return _error(401, "x-api-key header is required: set ANTHROPIC_API_KEY.")
        if self.api_key is not None and key != self.api_key:
            return _error(401)
        if "anthropic-version" not in headers:
            return _error(400, "anthropic-version: header is required.")
        if not raw:
            return _error(400, "The request has no body: send the JSON request with a "
                               "Content-Length header.")
        if body is None:
            return _error(400, "The request body is not valid JSON.")
        try:
            check_request(body)
        except InvalidRequest as exc:
            return _error(400, str(exc))
        if self.models is not None and body["model"] not in self.models:
            return _error(404, ERRORS[404][1].format(model=body["model"]))
        for name, value in self.expect.items():
            if body.get(name) != value:
                sent = "nothing" if name not in body else repr(body[name])[:200]
                return _error(400, f"{name}: this test expects {repr(value)[:200]}, but the "
                                   f"request sent {sent}.")
        lost = (thinking_kept(body["messages"], self._signed, self._thought)
                or prefix_kept(body, self._prefix))
        if lost:
            return _error(400, lost)
        if self._used == len(self.script):
            return _error(500, f"The script has no reply left: it had {len(self.script)}, and "
                               f"this is request {self._used + 1} that needs one.",
                          {"x-should-retry": "false"})
        recorded = self.conversations[self._used] if self._used < len(self.conversations) else None
        difference = None if recorded is None else _difference(recorded, body["messages"],
                                                               "messages")
        if difference:
            self.strayed.append(f"recorded request {self._used + 1}: {difference}")
            return _error(400, f"This is not the conversation of recorded request "
                               f"{self._used + 1}: {difference}; a replay can only follow the "
                               "session it recorded.")
        slot = self.script[self._used]
        self._used += 1
        if isinstance(slot, Failure):
            message = slot.message or ERRORS[slot.status][1].format(model=body["model"])
            extra = {} if slot.retry_after is None else {"retry-after": f"{slot.retry_after:g}"}
            return _error(slot.status, message, extra)
        thoughts = [_bare(b) for b in slot["content"] if field(b, "type") in THINKING]
        for block in thoughts:
            if block.get("type") == "thinking":
                self._signed[str(block.get("signature"))] = block.get("thinking")
            self._prefix[_seal(block)] = copy.deepcopy(
                {"system": body.get("system"), "tools": body.get("tools"), "messages": body["messages"]})
        for block in slot["content"] if thoughts else []:
            if field(block, "type") == "tool_use":
                self._thought[block.get("id")] = thoughts
        answer = copy.deepcopy(slot)
        usage = answer.get("usage") or {}
        if not usage.get("input_tokens") and not usage.get("output_tokens"):
            answer["usage"] = estimate_usage(body, answer["content"], self._cache)
        return 200, {}, answer


def _tokens(value: Any) -> int:
    return -(-len(json.dumps(value, sort_keys=True)) // CHARS_PER_TOKEN)


def estimate_usage(body: Mapping[str, Any], content: list[Any], cache: set[str]) -> dict[str, int]:
    """A plausible `usage` for answering `body` with `content`, as the API counts it.

    The prompt is read in the API's order, tools, then system, then each message's blocks.
    A block carrying `cache_control` (or, with a top-level `cache_control`, the last block of
    the last message) ends a prefix to cache: the longest prefix already in `cache` that ends at
    a breakpoint or up to LOOKBACK blocks before one is read from it
    (cache_read_input_tokens), the rest up to the last breakpoint is written to it
    (cache_creation_input_tokens), and only what follows counts as input_tokens. `cache` is
    updated. The API's minimum cacheable length and its time to live are not modelled.
    """
    def marked(piece: Any) -> bool:
        return isinstance(piece, dict) and "cache_control" in piece

    def bare(piece: Any) -> Any:
        return {k: v for k, v in piece.items() if k != "cache_control"} if marked(piece) else piece

    pieces: list[tuple[Any, bool]] = [(bare(tool), marked(tool)) for tool in body.get("tools") or []]
    system = body.get("system")
    if isinstance(system, list):
        pieces += [(bare(block), marked(block)) for block in system]
    elif system:
        pieces.append(({"type": "text", "text": system}, False))
    for message in body["messages"]:
        blocks = message["content"]
        if isinstance(blocks, str):  # the API reads a string as one text block
            blocks = [{"type": "text", "text": blocks}]
        pieces += [({"role": message["role"], "block": bare(block)}, marked(block)) for block in blocks]
    if body.get("cache_control") and pieces:
        pieces[-1] = (pieces[-1][0], True)
    sizes = [_tokens(piece) for piece, _ in pieces]
    breakpoints = [i for i, (_, cached) in enumerate(pieces) if cached]
    read = written = 0
    if breakpoints:
        def key(end: int) -> str:
            return json.dumps([piece for piece, _ in pieces[:end + 1]], sort_keys=True)

        # The API looks for a cached prefix at each breakpoint and up to LOOKBACK blocks before it.
        candidates = {i for b in breakpoints for i in range(max(0, b - LOOKBACK), b + 1)}
        hit = max((i for i in candidates if key(i) in cache), default=None)
        read = 0 if hit is None else sum(sizes[:hit + 1])
        written = sum(sizes[:breakpoints[-1] + 1]) - read
        cache.update(key(i) for i in breakpoints)
    return {"input_tokens": sum(sizes) - read - written, "output_tokens": _tokens(content),
            "cache_creation_input_tokens": written, "cache_read_input_tokens": read}


THINKING = ("thinking", "redacted_thinking")


def thinking_kept(messages: list[Any], signed: Mapping[str, str],
                  thought: Mapping[str, list[Any]]) -> str | None:
    """Why the API would refuse `messages` for the thinking blocks it holds, or None.

    `signed`: the thinking text each signature was issued with; `thought`: for each tool_use id,
    the thinking blocks of the reply that asked for it. Each thinking block sent must carry a
    signature issued with that very text (a thinking block is bound to the model and the
    conversation); and when the last message answers tools, the assistant turn before it must
    hold its reply's thinking blocks unchanged, as the API requires in a tool-use loop
    (https://platform.claude.com/docs/en/build-with-claude/extended-thinking).
    """
    for i, message in enumerate(messages):
        blocks = message["content"] if isinstance(message["content"], list) else []
        for j, block in enumerate(blocks):
            if field(block, "type") == "thinking" and signed.get(field(block, "signature")) != \
                    field(block, "thinking"):
                return (f"messages[{i}].content[{j}]: Invalid `signature` in `thinking` block: a "
                        "thinking block must go back exactly as the API sent it.")
    if len(messages) < 2 or messages[-2]["role"] != "assistant":
        return None
    last, turn = messages[-1]["content"], messages[-2]["content"]
    if not isinstance(last, list) or not isinstance(turn, list):
        return None
    answered = [field(b, "tool_use_id") for b in last if field(b, "type") == "tool_result"]
    expected = next((thought[i] for i in answered if i in thought), None)
    if expected is None:
        return None
    kept = [_bare(b) for b in turn if field(b, "type") in THINKING]
    if kept != expected:
        where = len(messages) - 2
        return (f"messages[{where}] is the assistant turn whose tool_use the last message answers, "
                f"but it lost the thinking block{'s' if len(expected) > 1 else ''} its reply began "
                "with: when thinking is on, send each assistant turn back exactly as the API "
                "returned it, thinking blocks included.")
    return None


def prefix_kept(body: Mapping[str, Any], prefixes: Mapping[str, Mapping[str, Any]]) -> str | None:
    """Why the API would refuse this request for a thinking block whose prefix changed, or None.

    `prefixes`: for each thinking block served (by its signature), the `system`, `tools` and
    messages of the request it answered. A thinking block is valid only after exactly those: a
    request that sends it back with another system prompt, other tools or an earlier message
    changed fails the block's prefix check, and the API answers 400 (for new accounts, by
    default: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks).
    A change invalidates only the thinking produced before it; thinking produced since is valid.
    """
    for i, message in enumerate(body["messages"]):
        blocks = message["content"] if isinstance(message["content"], list) else []
        for j, block in enumerate(blocks):
            if field(block, "type") not in THINKING:
                continue
            then = prefixes.get(_seal(_bare(block)))
            if then is None:
                continue
            changed = [name for name in ("system", "tools") if body.get(name) != then[name]]
            earlier = next((k for k, (a, b) in enumerate(zip(then["messages"], body["messages"][:i]))
                            if a != b), None)
            if earlier is None and len(then["messages"]) != i:
                earlier = min(i, len(then["messages"]))
            if earlier is not None:
                changed.append(f"messages[{earlier}]")
            if changed:
                return (f"messages[{i}].content[{j}]: the prefix of this thinking block changed "
                        f"({' and '.join(f'`{c}`' if c in ('system', 'tools') else c for c in changed)} "
                        "differ from the request it was produced after): a thinking block is valid "
                        "only with the system, tools and earlier messages it followed. Keep them "
                        "unchanged for the whole conversation and put each change in a new message "
                        "at the end.")
    return None


class Recorder(_Loopback):
    """Passes every request on to `upstream` (the real API) and keeps each Messages exchange.

        with Recorder("https://api.anthropic.com") as recorder:
            ... ANTHROPIC_BASE_URL=recorder.url, ANTHROPIC_API_KEY=<a real key> ...
        recorder.requests  # {"status", "body"} (plus the API's "error") per POST /v1/messages
        recorder.replies   # the body of each answer with status 200: a Message's JSON

    What a session sends and gets, at the HTTP level: the SDK's own retries are there too. The
    headers (the API key among them) are passed on but never kept. When `upstream` cannot be
    reached, the Recorder hangs up, so that the SDK meets the same connection error.
    """

    HOP_BY_HOP = {"host", "content-length", "connection", "accept-encoding", "keep-alive",
                  "transfer-encoding"}  # set anew for each hop, not passed on
    PASSED_BACK = ("request-id", "retry-after", "x-should-retry")  # besides the status and body

    def __init__(self, upstream: str, *, port: int = 0):
        self.upstream = upstream.rstrip("/")
        self.port = port
        self.max_body = 32_000_000  # the API's own limit
        self.requests: list[dict[str, Any]] = []
        self.replies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def answer(self, method: str, path: str, headers: dict[str, str],
               raw: bytes | None) -> tuple[int, dict[str, str], dict[str, Any]] | None:
        if raw is None:
            return _error(413, "The request body is larger than the API accepts.")
        forward = {k: v for k, v in headers.items() if k not in self.HOP_BY_HOP}
        request = urllib.request.Request(self.upstream + path, data=raw or None, headers=forward,
                                         method=method)
        try:
            with urllib.request.urlopen(request, timeout=UPSTREAM_TIMEOUT) as response:
                status, got, data = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, got, data = error.code, error.headers, error.read()
        except OSError:  # refused, no route, no name, timed out: nothing came back
            return None
        try:
            payload = json.loads(data)
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            payload = _error(500, f"{self.upstream} sent {status} without a JSON body.")[2]
        if (method, path.split("?")[0]) == ("POST", "/v1/messages"):
            exchange: dict[str, Any] = {"status": status}
            if status != 200:
                exchange["error"] = payload.get("error")
            exchange["body"] = json.loads(raw) if raw else None
            with self._lock:
                self.requests.append(exchange)
                if status == 200:
                    self.replies.append(payload)
        return status, {k: got[k] for k in self.PASSED_BACK if got.get(k)}, payload


def _seal(block: Mapping[str, Any]) -> str:
    """What identifies a thinking block the server sent: its signature, or a redacted block's data."""
    return str(block.get("signature") if block.get("type") == "thinking" else block.get("data"))


def _bare(block: Any) -> dict[str, Any]:
    """A thinking block's fields as they are sent back, whether it is a dict or an SDK object."""
    return {k: field(block, k) for k in sorted(BLOCK_FIELDS[field(block, "type")])
            if field(block, k) is not None}


def _difference(recorded: Any, sent: Any, where: str) -> str | None:
    """Where JSON `sent` first differs from `recorded`, in words; None when they are equal."""
    if isinstance(recorded, dict) and isinstance(sent, dict):
        for key in [*recorded, *(k for k in sent if k not in recorded)]:
            if key not in sent:
                return f"{where}.{key} is missing"
            if key not in recorded:
                return f"{where}.{key} is not in the recording"
            found = _difference(recorded[key], sent[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(sent, list):
        for i, (then, now) in enumerate(zip(recorded, sent)):
            found = _difference(then, now, f"{where}[{i}]")
            if found:
                return found
        if len(recorded) != len(sent):
            return f"{where} has {len(sent)} entries where the recording has {len(recorded)}"
        return None
    if recorded == sent and type(recorded) is type(sent):
        return None
    if isinstance(recorded, str) and isinstance(sent, str):
        return _text_difference(recorded, sent, where)
    return f"{where} is {_brief(sent)} where the recording has {_brief(recorded)}"


def _text_difference(recorded: str, sent: str, where: str) -> str:
    """Where two strings part, in words: their first differing line, from where it differs."""
    then, now = recorded.split("\n"), sent.split("\n")
    line = next((i for i, (a, b) in enumerate(zip(then, now)) if a != b), min(len(then), len(now)))
    if line == len(now):
        return (f"{where} ends after line {line} where the recording goes on with line {line + 1}: "
                f"{_brief(then[line])}")
    if line == len(then):
        return (f"{where} goes on after line {line}, where the recording ends, with line "
                f"{line + 1}: {_brief(now[line])}")
    a, b = then[line], now[line]
    column = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, column - 20)  # a little context before the first differing character
    if start:
        a, b = "..." + a[start:], "..." + b[start:]
    at = f", line {line + 1}," if len(then) > 1 or len(now) > 1 else ""
    return f"{where}{at} is {_brief(b)} where the recording has {_brief(a)}"


def _brief(value: Any) -> str:
    """A JSON value in a few words, without braces (explain() puts it in one sentence)."""
    if isinstance(value, dict):
        return f"an object with {len(value)} fields"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + '..."'


def _error(status: int, message: str | None = None,
           headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], dict[str, Any]]:
    kind, usual = ERRORS[status]
    payload = {"type": "error", "error": {"type": kind, "message": message or usual}}
    return status, headers or {}, payload


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = False  # so that server_close() waits for requests in flight

    def __init__(self, owner: _Loopback):
        self.owner = owner
        self.connections: set[socket.socket] = set()  # open, not yet answered and closed
        self.connections_lock = threading.Lock()
        super().__init__((HOST, owner.port), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        # A client that connected but sent nothing would keep its thread waiting for TIMEOUT:
        # end what it could still send; an answer being written is not affected.
        with self.connections_lock:
            for connection in self.connections:
                try:
                    connection.shutdown(socket.SHUT_RD)
                except OSError:
                    pass
        super().server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up is not worth a traceback on stderr


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = TIMEOUT
    server: _HTTPServer

    def do_POST(self) -> None:
        self._respond()

    def do_GET(self) -> None:
        self._respond()

    def _respond(self) -> None:
        owner = self.server.owner
        headers = {name.lower(): value for name, value in self.headers.items()}
        declared = headers.get("content-length", "")
        length = int(declared) if declared.isdigit() else 0
        raw: bytes | None = None
        if length <= owner.max_body:
            raw = self.rfile.read(length)
        else:  # read it in small pieces and drop them, so that the client gets to see the 413
            left = length
            while left > 0:
                chunk = self.rfile.read(min(left, 65536))
                if not chunk:
                    break
                left -= len(chunk)
        answer = owner.answer(self.command, self.path, headers, raw)
        if answer is None:  # hang up without a word, as an unreachable server would
            self.close_connection = True
            return
        status, extra, payload = answer
        data = json.dumps(payload).encode()
        self.send_response(status, "Overloaded" if status == 529 else None)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.send_header("connection", "close")  # one request per connection: nothing lingers
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: under nbgrader, any stderr output costs the cell its points
