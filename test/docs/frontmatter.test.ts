// SKILL.md's frontmatter against the Agent Skills specification (agentskills.io/specification).
import matter from "gray-matter";
import { describe, expect, it } from "vitest";
import { readDoc, SKILL_NAME } from "./support.ts";

const ALLOWED_KEYS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"];

describe("SKILL.md frontmatter", () => {
  const raw = readDoc("SKILL.md");
  const { data } = matter(raw);

  it("starts the file", () => {
    expect(raw.startsWith("---\n")).toBe(true);
  });

  it("uses only the keys the specification allows", () => {
    expect(Object.keys(data).filter((k) => !ALLOWED_KEYS.includes(k))).toEqual([]);
  });

  it("has a valid name equal to the skill's folder name", () => {
    expect(typeof data.name).toBe("string");
    const name = data.name as string;
    expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(name.length).toBeLessThanOrEqual(64);
    // Compared with the constant, not the checkout's folder: a clone in a temp dir must pass.
    expect(name).toBe(SKILL_NAME);
  });

  it("has a description of 1..1024 characters without angle brackets", () => {
    expect(typeof data.description).toBe("string");
    const description = data.description as string;
    expect(description.length).toBeGreaterThanOrEqual(1);
    expect(description.length).toBeLessThanOrEqual(1024);
    expect(description).not.toMatch(/[<>]/);
  });

  it("says what it does, when to use it and when not", () => {
    const d = data.description as string;
    expect(d).toMatch(/HANDOFF\.md/);
    expect(d).toMatch(/resume where we left off/);
    expect(d).toMatch(/what were we working on/);
    expect(d).toMatch(/pastes a handoff/);
    expect(d).toMatch(/commit or push/);
    expect(d).toMatch(/continue/);
    expect(d).toMatch(/PR descriptions/);
  });

  it("declares license, compatibility and string metadata", () => {
    expect(data.license).toBe("MIT");
    expect(typeof data.compatibility).toBe("string");
    const compatibility = data.compatibility as string;
    expect(compatibility.length).toBeGreaterThanOrEqual(1);
    expect(compatibility.length).toBeLessThanOrEqual(500);
    expect(compatibility).toMatch(/Node\.js 20/);
    expect(compatibility).toMatch(/git optional/);
    expect(typeof data.metadata).toBe("object");
    for (const [k, v] of Object.entries(data.metadata as Record<string, unknown>)) {
      expect(typeof k).toBe("string");
      expect(typeof v, `metadata.${k}`).toBe("string");
    }
  });
});
