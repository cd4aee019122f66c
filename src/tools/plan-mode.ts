/**
 * Plan mode (docs/plan-mode.md): while a chat's `plan_mode` is on, its model is told to plan
 * rather than act, and is offered only the tools that read. What it is told is one static block at
 * the end of the system prompt, so the prefix before it stays cacheable and only a switch of the
 * mode changes the prompt.
 */
import type { LocalTool } from "../llm/tools";

export const PLAN_MODE_GUIDANCE = [
  "You are in plan mode. The user wants a plan before anything is changed.",
  "- Investigate with the read-only tools you are offered; tools that change things are not available until the user leaves plan mode.",
  "- Do not claim to have changed anything. Answer with a concrete, numbered plan: the steps, what each one changes and why, and the open questions.",
  "- If the user asks you to act, say that plan mode is on and that they can switch it off to let you carry out the plan.",
].join("\n");

/** The message a write tool's call gets in plan mode. */
export function planModeRefusalMessage(toolName: string): string {
  return `${toolName} may change things and the chat is in plan mode: only read-only tools run while planning. Finish the plan; the user can leave plan mode to carry it out.`;
}

/**
 * `tool` as plan mode runs it: the same name, so a call made before the mode was switched on
 * gets a refusal the model can read instead of "unknown tool", and nothing runs.
 */
export function planModeRefusal(tool: LocalTool): LocalTool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    async execute() {
      throw new Error(planModeRefusalMessage(tool.name));
    },
  };
}
