import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, sha, snapshot, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";
import { parkedAt, runBounded, seedIn, SUBJECTS } from "./support.ts";

// The kill switch (docs/design.md#refusals-exit-codes-and-the-kill-switch) refuses every mutating
// verb with exit 4 and the thing to remove, changes nothing, lets reads work; refusal order is
// usage, paused, busy, the rest. First use: no .ai at all.
// The verbs run in this process (inProcess); the hook, which a harness spawns, and the lock's
// holder are spawned (runBounded, parkedAt).

type Switch = "project PAUSE" | "SESSION_HANDOFF_PAUSE with ~" | "global PAUSE" | "SESSION_HANDOFF_DISABLE=1";
const SWITCHES: Switch[] = ["project PAUSE", "SESSION_HANDOFF_PAUSE with ~", "global PAUSE", "SESSION_HANDOFF_DISABLE=1"];

/** Turns a switch on for `root`; returns the env to pass and the path the message names. */
function pull(sw: Switch, root: string): { env: Record<string, string>; names: string } {
  if (sw === "project PAUSE") {
    const p = path.join(root, ".ai", "memory", "PAUSE");
    writeFileSync(p, "");
    return { env: {}, names: p };
  }
  if (sw === "SESSION_HANDOFF_PAUSE with ~") {
    const home = tempDir("sh-home-");
    writeFileSync(path.join(home, "handoff-paused"), "");
    return { env: { HOME: home, SESSION_HANDOFF_PAUSE: "~/handoff-paused" }, names: path.join(home, "handoff-paused") };
  }
  if (sw === "global PAUSE") {
    const xdg = tempDir("sh-xdg-");
    mkdirSync(path.join(xdg, "session-handoff"));
    writeFileSync(path.join(xdg, "session-handoff", "PAUSE"), "");
    return { env: { XDG_CONFIG_HOME: xdg }, names: path.join(xdg, "session-handoff", "PAUSE") };
  }
  return { env: { SESSION_HANDOFF_DISABLE: "1" }, names: "SESSION_HANDOFF_DISABLE=1 from the environment" };
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("the kill switch", () => {
  it.each(SWITCHES)("%s: write, promote, recover exit 4 naming what to remove and change nothing; reads work", async (sw) => {
    const root = gitRepo();
    const t = await seedIn(root, SUBJECTS.handoff, "parked");
    const tl = await seedIn(root, SUBJECTS.lessons, "a lesson");
    const ta = await seedIn(root, SUBJECTS.promote, "an agent rule");
    const { env, names } = pull(sw, root);
    const before = snapshot(root);
    const paused = new RegExp(`^memory operation refused: memory writes are paused: remove ${esc(names)} to resume\n$`);
    for (const [args, input] of [
      [["write", "handoff", "--root", root, "--expected-current-sha256", t], handoff("new")],
      [["write", "lessons", "--root", root, "--expected-current-sha256", tl], "<!-- memory-schema: v1 -->\n# Lessons\n"],
      [["promote", "--root", root, "--target", "AGENTS.md", "--expected-current-sha256", ta], "- lesson\n"],
      [["promote", "--root", root, "--target", "CLAUDE.md", "--expected-current-sha256", "absent"], "- lesson\n"],
      [["recover", "--root", root], ""],
    ] as [string[], string][]) {
      const r = await inProcess(args, { input, env });
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(4);
      expect(r.stderr).toMatch(paused);
      expect(r.stdout).toBe("");
    }
    expect(snapshot(root)).toEqual(before);
    // Reads keep working.
    expect((await inProcess(["read", "handoff", "--root", root], { env })).code).toBe(0);
    expect((await inProcess(["read", "lessons", "--root", root], { env })).code).toBe(0);
    expect((await inProcess(["read-target", "--root", root, "--target", "AGENTS.md"], { env })).code).toBe(0);
    // check keeps its code and says so; the hook says so (silent with DISABLE).
    const check = await inProcess(["check", "--root", root], { env });
    expect(check.code).toBe(2);
    expect(check.stdout).toContain(`memory writes are paused: remove ${names} to resume`);
    const hook = runBounded(["hook", "--mode", "session", "--root", root], { env });
    expect(hook.code).toBe(0);
    if (sw === "SESSION_HANDOFF_DISABLE=1") expect(hook.stdout).toBe("");
    else expect(hook.stdout).toContain("session-handoff: memory writes are paused by the kill switch; saved memory can still be read when asked.");
    expect(snapshot(root)).toEqual(before);
  });

  it.each(SWITCHES)("%s: the hook prints its paused sentence even with no memory at all (silent with DISABLE); write creates nothing", async (sw) => {
    const root = gitRepo();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true, mode: 0o700 });
    const { env } = pull(sw, root);
    const before = snapshot(root);
    const hook = runBounded(["hook", "--mode", "session", "--root", root], { env });
    if (sw === "SESSION_HANDOFF_DISABLE=1") expect(hook.stdout).toBe("");
    else expect(hook.stdout).toContain("session-handoff: memory writes are paused by the kill switch; saved memory can still be read when asked.");
    expect((await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("x"), env })).code).toBe(4);
    expect((await inProcess(["check", "--root", root], { env })).code).toBe(0);
    expect(snapshot(root)).toEqual(before);
  });

  it("refusal order: usage, then paused, then busy, then the rest", async () => {
    const root = gitRepo();
    const t = await seedIn(root, SUBJECTS.handoff, "parked");
    // A live holder makes the memory busy.
    const held = await parkedAt(SUBJECTS.handoff.writeArgs(root, t), "read-opened", handoff("holder"));
    expect(held.parked).toBe(true);
    const write = (args: string[], input: string, env: Record<string, string> = {}) => inProcess(["write", "handoff", "--root", root, ...args, "--lock-timeout", "0.2"], { input, env });
    const pause = { SESSION_HANDOFF_DISABLE: "1" };
    // usage beats paused and busy
    expect((await write([], handoff("x"), pause)).code).toBe(2);
    expect((await write([], handoff("x"), pause)).stderr).toMatch(/--expected-current-sha256 TOKEN is required/);
    // paused beats busy and a bad document or a stale token
    const p = await write(["--expected-current-sha256", sha("stale")], "not a document", pause);
    expect(p.code).toBe(4);
    // busy beats a bad document and a stale token
    const b = await write(["--expected-current-sha256", sha("stale")], "not a document");
    expect(b.code).toBe(5);
    expect(b.stderr).toMatch(/^memory operation refused: memory is busy: process \d+ holds the lock/);
    expect((await inProcess(["promote", "--root", root, "--target", "AGENTS.md", "--expected-current-sha256", "absent", "--lock-timeout", "0.2"], { input: "" })).code).toBe(5);
    expect((await inProcess(["recover", "--root", root, "--lock-timeout", "0.2"])).code).toBe(5);
    held.go();
    expect((await held.run).code).toBe(0);
    // then the rest: a bad document, a stale token
    expect((await write(["--expected-current-sha256", sha("stale")], "not a document")).stderr).toMatch(/must begin with the line/);
    expect((await write(["--expected-current-sha256", sha("stale")], handoff("y"))).stderr).toMatch(/changed since it was read/);
  });
});

describe("first use: no .ai at all", () => {
  it("the hook is silent, reads say absent and make only their drafts' folder, check says nothing parked, recover creates nothing, write creates what it needs", async () => {
    const root = gitRepo();
    const before = snapshot(root);
    const hook = runBounded(["hook", "--mode", "session", "--root", root]);
    expect(hook).toMatchObject({ code: 0, stdout: "" });
    expect(runBounded(["hook", "--mode", "lessons"], { input: JSON.stringify({ cwd: root }) })).toMatchObject({ code: 0, stdout: "" });
    expect(await inProcess(["read-target", "--root", root, "--target", "AGENTS.md"])).toMatchObject({ code: 3, stdout: "CURRENT-SHA256: absent\n" });
    expect(snapshot(root)).toEqual(before);
    for (const kind of ["handoff", "lessons", "solutions"]) {
      expect(await inProcess(["read", kind, "--root", root])).toMatchObject({ code: 3, stdout: "CURRENT-SHA256: absent\n" });
    }
    // The drafts' folder, so that the path each read named can be written by a shell.
    const drafts = { ".ai": "dir 700", ".ai/memory": "dir 700", ".ai/memory/drafts": "dir 700" };
    expect(Object.fromEntries(Object.entries(snapshot(root)).filter(([k]) => !(k in before) && !k.endsWith(".gitignore")))).toEqual(drafts);
    const made = snapshot(root);
    expect((await inProcess(["check", "--root", root])).code).toBe(0);
    expect(await inProcess(["recover", "--root", root])).toMatchObject({ code: 0, stdout: "nothing to recover\n" });
    expect(snapshot(root)).toEqual(made);
    const w = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("first") });
    expect(w.code, w.stderr).toBe(0);
    const snap = snapshot(root);
    expect(snap[".ai"]).toBe("dir 700");
    expect(snap[".ai/memory"]).toBe("dir 700");
    expect(snap[".ai/memory/HANDOFF.md"]).toMatch(/^file 600 n1 /);
    expect(Object.keys(snap).filter((k) => k.startsWith(".ai/memory/."))).toEqual([]);
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
  });

  it("promote and a ledger write also create what they need", async () => {
    for (const args of [
      ["promote", "--target", "AGENTS.md"],
      ["write", "lessons"],
    ]) {
      const root = gitRepo();
      const input = args[0] === "promote" ? "- first lesson\n" : "<!-- memory-schema: v1 -->\n# Lessons\n";
      const r = await inProcess([...args, "--root", root, "--expected-current-sha256", "absent"], { input });
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(path.join(root, ".ai", "memory"))).toBe(true);
    }
  });
});
