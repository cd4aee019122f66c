/**
 * Which model and effort a new subagent runs with (spec "Reasoning effort", subagent precedence).
 * Pure: the caller loads the override rows and says which configs are usable now.
 *
 * 1. explicit spawn_agent arguments (validated before this runs: invalid ones are a tool error);
 * 2. the owner's personal override: `chat_default` stops here and keeps the type default,
 *    `model` picks its model (and optional effort) when usable, else falls through softly,
 *    `deployment_default` defers to the organization;
 * 3. the organization's override for the context, when usable;
 * 4. the type default: both types inherit the parent's current model (and its effort choice); a
 *    parent model that is no longer usable becomes the organization's default (null), which is
 *    what the parent's own next turn would fall back to.
 *
 * The two values are resolved apart for the explicit layer only: an explicit effort wins over any
 * layer's effort, an explicit model comes with no effort of its own (the config's default applies).
 * Below that, the layer that chooses the model also supplies the effort.
 */
import type { ReasoningEffort } from "../model-configs/options";
import type { PersonalOverrideMode } from "../db/schema/subagents";

export type SelectionSource = "explicit" | "personal" | "organization" | "parent";

export interface PersonalOverride {
  mode: PersonalOverrideMode;
  modelConfigId: string | null;
  reasoningEffort: ReasoningEffort | null;
}

export interface SubagentModelInput {
  explicit: { modelConfigId?: string | undefined; reasoningEffort?: ReasoningEffort | undefined };
  personal: PersonalOverride | null;
  organization: { modelConfigId: string } | null;
  /** The parent's current choice; a null model means the organization's default. */
  parent: { modelConfigId: string | null; reasoningEffort: ReasoningEffort | null };
  usable(modelConfigId: string): boolean;
}

export interface SubagentModelSelection {
  modelConfigId: string | null;
  reasoningEffort: ReasoningEffort | null;
  /** Which layer chose the model. */
  source: SelectionSource;
}

type ModelChoice = { modelConfigId: string | null; reasoningEffort: ReasoningEffort | null; source: SelectionSource };

function overrideModel(input: SubagentModelInput): ModelChoice | null {
  const { personal, organization, usable } = input;
  if (personal?.mode === "chat_default") return null;
  if (personal?.mode === "model" && personal.modelConfigId !== null && usable(personal.modelConfigId))
    return { modelConfigId: personal.modelConfigId, reasoningEffort: personal.reasoningEffort, source: "personal" };
  if (organization && usable(organization.modelConfigId))
    return { modelConfigId: organization.modelConfigId, reasoningEffort: null, source: "organization" };
  return null;
}

function inherited(input: SubagentModelInput): ModelChoice {
  const { modelConfigId, reasoningEffort } = input.parent;
  return { modelConfigId: modelConfigId !== null && input.usable(modelConfigId) ? modelConfigId : null, reasoningEffort, source: "parent" };
}

export function resolveSubagentModel(input: SubagentModelInput): SubagentModelSelection {
  const explicitModel = input.explicit.modelConfigId;
  const chosen: ModelChoice = explicitModel
    ? { modelConfigId: explicitModel, reasoningEffort: null, source: "explicit" }
    : (overrideModel(input) ?? inherited(input));
  return { ...chosen, reasoningEffort: input.explicit.reasoningEffort ?? chosen.reasoningEffort };
}
