// A checkpoint keeps what a session ran and said: the password flags of common clients and a
// password the user typed never reach checkpoints/, and git never sees that folder.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo } from "../helpers.ts";
import { CP_DIR, checkpoint } from "./support.ts";

const SESSION = "0d5c6a2e-1111-4c2b-9a57-5f0f1c2b3a4d";

function line(type: "user" | "assistant", n: number, content: unknown): string {
  return JSON.stringify({
    sessionId: SESSION,
    version: "2.1.80",
    cwd: "/x",
    type,
    uuid: `${type}-${n}`,
    timestamp: `2026-11-30T09:${String(n).padStart(2, "0")}:00.000Z`,
    message: { role: type, content },
  });
}

const PW = (i: number): string => `Qz${i}x!Kp${i * 7}vW3m`;
const COMMANDS = [
  (p: string) => `sshpass -p ${p} ssh deploy@host uptime`,
  (p: string) => `docker login -u bob -p ${p} registry.example.com`,
  (p: string) => `az login -u bob@example.com -p ${p}`,
  (p: string) => `redis-cli -h cache -a ${p} ping`,
  (p: string) => `ldapsearch -x -D cn=admin -w ${p} -b dc=example`,
  (p: string) => `sqlcmd -S db -U sa -P ${p} -Q "select 1"`,
  (p: string) => `zip -P ${p} secret.zip notes.txt`,
  (p: string) => `htpasswd -b .htpasswd alice ${p}`,
  (p: string) => `smbclient //srv/share -U alice%${p}`,
  (p: string) => `echo '${p}' | sudo -S apt update`,
];

function allBytes(dir: string): string {
  return existsSync(dir) ? readdirSync(dir).map((n) => readFileSync(path.join(dir, n), "latin1")).join("\n") : "";
}

describe("checkpoint redacts the password flags and a typed password", () => {
  it("none of them is in checkpoints/ or on stderr, and checkpoints/ is ignored by git", () => {
    const root = gitRepo();
    const lines = [line("user", 0, `Deploy it; my password is ${PW(99)} for the box`)];
    COMMANDS.forEach((make, i) => {
      lines.push(line("assistant", i + 1, [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: make(PW(i)) } }]));
      lines.push(line("user", i + 1, [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "ok" }]));
    });
    const t = path.join(root, "..", `${path.basename(root)}-t.jsonl`);
    writeFileSync(t, `${lines.join("\n")}\n`);
    const r = checkpoint(root, { transcript_path: t });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/saved checkpoints\//);
    const everything = allBytes(CP_DIR(root)) + r.stdout + r.stderr;
    for (let i = 0; i < COMMANDS.length; i++) expect(everything, COMMANDS[i]!("…")).not.toContain(PW(i));
    expect(everything).not.toContain(PW(99));
    expect(git(root, "status", "--porcelain", "--untracked-files=all")).not.toMatch(/checkpoints/);
  });
});
