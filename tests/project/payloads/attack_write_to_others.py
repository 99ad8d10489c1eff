"""Attack `write-to-others` of test_sandbox.py's hostile class: writes into the other students'
hand-ins and autograded copies. Appended to the student's nano/protocol.py after
attack_prelude.py, it runs when the kernel imports it."""

for victim in VICTIMS:
    for folder in [COURSE / "submitted" / victim / "nano" / "nano", COURSE / "autograded" / victim / "nano"]:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "protocol.py").write_text("PWNED")
        except OSError:
            pass
    try:
        (Path.cwd() / f"link-{victim}").symlink_to(COURSE / "submitted" / victim / "nano" / "nano" / "protocol.py")
    except OSError:
        pass
