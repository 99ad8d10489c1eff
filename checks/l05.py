"""Lecture 05's rules: call_model (nano/model.py) and agent_loop (nano/loop.py).

Each rule is defined once: `./ok 05` and the notebook's graded cells run its visible case in
your process, and the grader runs the same drive and judge on more cases of the same shape.
call_model's rules (l05_model.py) send through the real SDK to a Messages API server the check
runs, and read what arrived; agent_loop's (l05_loop.py) run your loop against a scripted model,
with run_tool and confirm replaced by stand-ins answered by the check, so that they test the
loop and nothing else. A case of agent_loop's is plain data: the caller's list, the model's
replies, what the tools and the gate answer (l05_loop.py says how).
"""

from checks.l05_loop import (drive_celsius, drive_runs, drive_turn_limit, judge_by_id, judge_callers_list,
                             judge_celsius, judge_declined, judge_one_message, judge_printed, judge_text_reply,
                             judge_tool_error, judge_turn_limit, judge_ungated, judge_verbatim)
from checks.l05_model import (drive_five_fields, drive_fresh_import, drive_one_call, drive_reuses_client,
                              judge_five_fields, judge_fresh_import, judge_one_call, judge_reuses_client)
from checks.rule import Rule

NEEDS = ("nano.loop", "nano.model")  # loaded first by ./ok: a file that does not load is named before any rule runs


def user(text):
    return [{"role": "user", "content": text}]


def text(value):
    return {"type": "text", "text": value}


def tool_use(id, name, input):
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def thinking(value, signature):
    return {"type": "thinking", "thinking": value, "signature": signature}


RULES = [
    # First: the first client built in a grader's subject (whose start imports the SDK) is slow on a loaded machine.
    Rule("l05_call_model_sends_five_fields", drive_one_call, judge_one_call, timeout=60),
    Rule("l05_call_model_sends_five_fields", drive_five_fields, judge_five_fields, {"cases": [
        {"token": "pong-visible", "model": "claude-test-visible", "max_tokens": 4321,
         "system": "You are the visible case's system prompt.", "ping": "ping"}]}),
    Rule("l05_call_model_reuses_client", drive_fresh_import, judge_fresh_import),
    Rule("l05_call_model_reuses_client", drive_reuses_client, judge_reuses_client, {"cases": [
        {"third": "three"}]}),
    Rule("l05_text_reply_ends", drive_runs, judge_text_reply, {"cases": [
        {"start": user("Say hi."), "replies": [[text("Nothing to do here.")]], "no_tools": True}]}),
    Rule("l05_assistant_turn_verbatim", drive_runs, judge_verbatim, {"cases": [
        {"start": user("Look, then answer in two paragraphs."), "tools": "output of {name}", "replies": [
            [thinking("I should look first.", "sig-visible-1"), text("Let me look."),
             tool_use("toolu_v1", "list_files", {"path": "."})],
            [thinking("", "EuYBCkQIBhgCIkBhbnN3ZXIgaW4gdHdv"), {**text("Here is my answer."), "citations": [
                {"type": "char_location", "cited_text": "answer", "document_index": 0, "document_title": "notes",
                 "start_char_index": 0, "end_char_index": 6}]},  # a block a dict of type and text would lose
             text("And a second paragraph.")]]}]}),
    Rule("l05_results_matched_by_id", drive_runs, judge_by_id, {"cases": [
        {"start": user("Read notes.txt."), "tools": "contents of {path}", "replies": [
            [tool_use("toolu_check_1", "read_file", {"path": "notes.txt"})], [text("Read it.")]]}]}),
    Rule("l05_results_matched_by_id", drive_runs, judge_printed, {"cases": [
        {"start": user("Look around, then clean up."), "tools": "output of {name}", "answers": [False],
         "raises": {"src": ["FileNotFoundError", "No such file: src"]}, "replies": [
            [text("Let me look."), tool_use("toolu_s1", "read_file", {"path": "a.txt"}),
             tool_use("toolu_s2", "bash", {"command": "rm -rf build"})],
            [tool_use("toolu_s3", "list_files", {"path": "src"})], [text("Done.")]]}]}),
    Rule("l05_tool_error_becomes_result", drive_runs, judge_tool_error, {"cases": [
        {"start": user("Read missing.txt."), "tools": "fine: {path}",
         "raises": {"missing.txt": ["FileNotFoundError", "No such file: missing.txt"]}, "replies": [
            [tool_use("toolu_err_1", "read_file", {"path": "missing.txt"})], [text("That file is missing.")]]}]}),
    Rule("l05_declined_tool_never_runs", drive_runs, judge_declined, {"cases": [
        {"start": user("Clean up."), "tools": "ran {name}", "answers": [False], "replies": [
            [tool_use("toolu_no_1", "bash", {"command": "rm -rf build"})], [text("All right, I won't.")]]}]}),
    Rule("l05_ungated_tools_skip_gate", drive_runs, judge_ungated, {"cases": [
        {"start": user("Look."), "tools": "output of {name}", "replies": [
            [tool_use("toolu_u1", "list_files", {"path": "."})], [tool_use("toolu_u2", "read_file", {"path": "a.txt"})],
            [text("Seen it.")]]}]}),
    Rule("l05_one_user_message_for_all_results", drive_runs, judge_one_message, {"cases": [
        {"start": user("Read a.txt and b.txt."), "tools": {"bash": "ran {command}", "*": "text of {path}"}, "replies": [
            [tool_use("toolu_p1", "read_file", {"path": "a.txt"}), tool_use("toolu_p2", "read_file", {"path": "b.txt"})],
            [text("Both read.")]]}]}),
    Rule("l05_callers_list_mutated", drive_runs, judge_callers_list, {"cases": [
        {"start": user("What files are here?"), "tools": "a.txt", "replies": [
            [tool_use("toolu_l1", "list_files", {"path": "."})], [text("Just a.txt.")]]}]}),
    Rule("l05_turn_limit", drive_turn_limit, judge_turn_limit, {"cases": [
        {"max_turns": 2, "asks": 1}, {"max_turns": None, "asks": 1}]}),
    Rule("l05_celsius_trace_matches", drive_celsius, judge_celsius, {"cases": [{"renames": {}}]}),
]
