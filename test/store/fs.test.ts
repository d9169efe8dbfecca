// The one small read: real files of every shape, each refused without following a link or waiting on a FIFO.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { exists, lstatOrNull, readSmall } from "../../src/store/files.ts";
import { tempDir } from "../helpers.ts";

describe("readSmall", () => {
  it("reads a small regular file whole", () => {
    const f = path.join(tempDir(), "a.txt");
    writeFileSync(f, "gitdir: ../x\n");
    expect(readSmall(f)).toBe("gitdir: ../x\n");
    expect(readSmall(f, 13)).toBe("gitdir: ../x\n");
  });

  it("null for a missing file, a folder, a file over the cap, and a link to a readable file", () => {
    const dir = tempDir();
    const file = path.join(dir, "real.txt");
    writeFileSync(file, "secret\n");
    symlinkSync(file, path.join(dir, "link"));
    mkdirSync(path.join(dir, "folder"));
    writeFileSync(path.join(dir, "big"), "x".repeat(1025));
    expect(readSmall(path.join(dir, "missing"))).toBeNull();
    expect(readSmall(path.join(dir, "folder"))).toBeNull();
    expect(readSmall(path.join(dir, "big"), 1024)).toBeNull();
    expect(readSmall(path.join(dir, "big"))).toHaveLength(1025);
    expect(readSmall(path.join(dir, "link"))).toBeNull();
  });

  it.skipIf(process.platform === "win32")("null for a FIFO at once, with no writer ever waited for", async () => {
    const fifo = path.join(tempDir(), "fifo");
    execFileSync("mkfifo", [fifo]);
    // Were the FIFO opened to wait for a writer, this one arrives after 8 s and the read ends with "" instead;
    // the bound sits far below that and far above a loaded machine's scheduling delays.
    const writer = spawn("sh", ["-c", 'sleep 8; exec 3>"$0"', fifo], { stdio: "ignore", timeout: 12_000 });
    try {
      const t0 = Date.now();
      expect(readSmall(fifo)).toBeNull();
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      writer.kill();
    }
  });
});

describe("lstatOrNull and exists", () => {
  it("see a dangling link itself and never its target", () => {
    const dir = tempDir();
    symlinkSync(path.join(dir, "nowhere"), path.join(dir, "dangling"));
    expect(exists(path.join(dir, "dangling"))).toBe(true);
    expect(lstatOrNull(path.join(dir, "dangling"))?.isSymbolicLink()).toBe(true);
    expect(exists(path.join(dir, "nowhere"))).toBe(false);
    expect(lstatOrNull(path.join(dir, "nowhere", "below"))).toBeNull();
  });
});
