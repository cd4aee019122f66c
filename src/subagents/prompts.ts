/** Static texts: the parent's guidance block and each child type's system prompt. */
import type { SubagentContext } from "../db/schema/subagents";

export const SUBAGENT_GUIDANCE = [
  "You can delegate work to subagents: child chats that run on their own while you continue.",
  "- spawn_agent starts one (type general for any task, explore for reading and investigating) with a self-contained prompt; it returns an agent_id at once.",
  "- wait_agent blocks until that agent is done (waiting, error or needs action) or its timeout passes, and returns its latest answer.",
  "- message_agent sends it a follow-up (queued, or interrupt: true to stop what it is doing first); interrupt_agent stops it.",
  "- list_agents shows your subagents; list_subagent_models the models you may pass as model_config_id.",
  "Subagents cannot spawn subagents of their own. Spawn several before waiting to run them in parallel.",
].join("\n");

export const SUBAGENT_SYSTEM_PROMPTS: Record<SubagentContext, string> = {
  general:
    "You are a subagent: another agent gave you the task in the first message. Do it completely, then answer with the result in your final message; that message is what the other agent reads.",
  explore:
    "You are an explore subagent: another agent asked you to investigate something. Gather and check facts without changing anything, then answer with a concise report in your final message; that message is what the other agent reads.",
};
