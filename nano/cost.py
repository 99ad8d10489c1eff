"""What the model's replies cost: Anthropic's prices, and a meter that prints them as a run goes.

Given, for lectures 05 and 06. `PRICES` and `CACHE_MINIMUM` are the one place the course keeps
Anthropic's figures: lecture 05's cost and caching cells read them, and so does `metered`, which
`python -m nano` (live and replayed) and lecture 06's live run wrap around the model, so that each
reply's tokens and the session's running cost are printed. `cost(usage)` is the arithmetic.
Nothing to write here.

Prices change: every figure below says where and when it was read. Before you rely on one, read
the page again (https://platform.claude.com/docs/en/about-claude/pricing).
"""

from dataclasses import dataclass
from typing import Any

from anthropic.types.message import Message
from anthropic.types.message_param import MessageParam

from nano.model import Model


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens of one model, for each kind of token a reply's usage counts."""

    input: float  # usage.input_tokens: read, and not from the cache
    output: float  # usage.output_tokens: written, thinking included
    cache_write: float  # usage.cache_creation_input_tokens, at the default five-minute lifetime
    cache_read: float  # usage.cache_read_input_tokens


# Read on 2026-12-04 through stored copies of Anthropic's pages, with the search tool:
# https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing") and
# https://platform.claude.com/docs/en/models/sonnet-5-5/overview ("Pricing"): $2 input, $10
# output, $2.50 for five-minute cache writes ($4 for one hour, which nano does not use). Cache
# reads: $0.10, cut from $0.20 on 2026-10-07 (0.05 times the input price) as the pricing trackers
# that re-read the pricing page since then record; the stored copy of the model page, older,
# still says $0.20.
PRICES = {
    "claude-sonnet-5-5": Price(input=2.00, output=10.00, cache_write=2.50, cache_read=0.10),
}

# The shortest prompt prefix, in tokens, that the API caches; a shorter one is sent uncached,
# without an error. Read on 2026-12-04: 512 for Claude Sonnet 5.5 (its comparison with Sonnet 5,
# which caches from 1,024); the stored copy of https://platform.claude.com/docs/en/build-with-claude/prompt-caching
# ("Cache limitations") predates Sonnet 5.5 and gives 512 for Opus 5 and Fable 5.
CACHE_MINIMUM = {
    "claude-sonnet-5-5": 512,
}


def cost(usage: Any, price: Price) -> float:
    """The dollars one reply cost: each kind of token in `usage` (a reply's .usage) at its price."""
    return (usage.input_tokens * price.input + usage.output_tokens * price.output
            + (usage.cache_creation_input_tokens or 0) * price.cache_write
            + (usage.cache_read_input_tokens or 0) * price.cache_read) / 1_000_000


def price_of(model: str) -> Price | None:
    """The price of the model id `model` (a dated id, claude-sonnet-5-5-20260928, is its model's)."""
    return next((price for name, price in PRICES.items()
                 if model == name or model.startswith(name + "-")), None)


class Metered:
    """`model`, printing after each reply one line: its tokens, what it cost, the session so far.

        · 1,583 tokens in, 128 out: $0.0044 (this session: $0.0080)

    The session is this object's life: `spent` holds the dollars of every reply so far, `calls`
    their number. A reply whose model has no price in PRICES is counted in tokens only.
    """

    def __init__(self, model: Model):
        self.model, self.spent, self.calls = model, 0.0, 0

    async def __call__(self, messages: list[MessageParam]) -> Message:
        reply = await self.model(messages)
        self.calls += 1
        print(self.line(reply))
        return reply

    def line(self, reply: Message) -> str:
        usage = reply.usage
        read, written = usage.cache_read_input_tokens or 0, usage.cache_creation_input_tokens or 0
        tokens = f"{usage.input_tokens + read + written:,} tokens in"
        if read or written:
            tokens += f" ({read:,} read from the cache, {written:,} written to it)"
        tokens += f", {usage.output_tokens:,} out"
        price = price_of(reply.model)
        if price is None:
            return f"· {tokens} (no price for {reply.model} in nano/cost.py)"
        spent = cost(usage, price)
        self.spent += spent
        return f"· {tokens}: ${spent:.4f} (this session: ${self.spent:.4f})"


def metered(model: Model) -> Metered:
    """`model`, printing each reply's tokens and the session's running cost (see Metered)."""
    return Metered(model)
