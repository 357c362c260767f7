import { AI_EXPERIENCE_VALUES, PLATFORM_VALUES } from "@flotilla/contracts/signup";

export function validSignup(overrides: Record<string, unknown> = {}) {
  return {
    email: "Ada.Lovelace@Example.com",
    name: "Ada Lovelace",
    company: "Analytical Engines",
    role: "Tech Lead",
    ai_experience: AI_EXPERIENCE_VALUES[2],
    platform: PLATFORM_VALUES[2],
    interests: "AI Agent Coordination, Git Integration",
    newsletter: true,
    ...overrides,
  };
}
