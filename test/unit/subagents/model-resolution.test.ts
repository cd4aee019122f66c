import { describe, expect, it } from "vitest";
import type { ReasoningEffort } from "../../../src/model-configs/options";
import { type PersonalOverride, resolveSubagentModel, type SubagentModelSelection } from "../../../src/subagents/model-resolution";

const PARENT = "00000000-0000-0000-0000-00000000000a";
const EXPLICIT = "00000000-0000-0000-0000-00000000000e";
const PERSONAL = "00000000-0000-0000-0000-00000000000b";
const ORG = "00000000-0000-0000-0000-00000000000c";
const GONE = "00000000-0000-0000-0000-00000000000d";

const model = (id: string, effort: ReasoningEffort | null = null): PersonalOverride => ({
  mode: "model",
  modelConfigId: id,
  reasoningEffort: effort,
});

interface Case {
  name: string;
  explicit?: { modelConfigId?: string; reasoningEffort?: ReasoningEffort };
  personal?: PersonalOverride | null;
  organization?: string | null;
  parent?: { modelConfigId: string | null; reasoningEffort: ReasoningEffort | null };
  want: SubagentModelSelection;
}

const parent = { modelConfigId: PARENT, reasoningEffort: "low" as const };

const cases: Case[] = [
  { name: "nothing set: inherit the parent's model and effort", want: { modelConfigId: PARENT, reasoningEffort: "low", source: "parent" } },
  {
    name: "parent on the organization default: the child is too",
    parent: { modelConfigId: null, reasoningEffort: null },
    want: { modelConfigId: null, reasoningEffort: null, source: "parent" },
  },
  {
    name: "explicit model and effort win over everything",
    explicit: { modelConfigId: EXPLICIT, reasoningEffort: "high" },
    personal: model(PERSONAL, "medium"),
    organization: ORG,
    want: { modelConfigId: EXPLICIT, reasoningEffort: "high", source: "explicit" },
  },
  {
    name: "explicit model alone brings no effort (the config's default applies)",
    explicit: { modelConfigId: EXPLICIT },
    personal: model(PERSONAL, "medium"),
    want: { modelConfigId: EXPLICIT, reasoningEffort: null, source: "explicit" },
  },
  {
    name: "explicit effort alone rides on the personal model",
    explicit: { reasoningEffort: "xhigh" },
    personal: model(PERSONAL, "medium"),
    organization: ORG,
    want: { modelConfigId: PERSONAL, reasoningEffort: "xhigh", source: "personal" },
  },
  {
    name: "explicit effort alone on the inherited model",
    explicit: { reasoningEffort: "max" },
    want: { modelConfigId: PARENT, reasoningEffort: "max", source: "parent" },
  },
  {
    name: "personal model with its effort beats the organization",
    personal: model(PERSONAL, "medium"),
    organization: ORG,
    want: { modelConfigId: PERSONAL, reasoningEffort: "medium", source: "personal" },
  },
  {
    name: "personal model without effort",
    personal: model(PERSONAL),
    want: { modelConfigId: PERSONAL, reasoningEffort: null, source: "personal" },
  },
  {
    name: "unusable personal model falls through softly to the organization",
    personal: model(GONE, "high"),
    organization: ORG,
    want: { modelConfigId: ORG, reasoningEffort: null, source: "organization" },
  },
  {
    name: "unusable personal model and no organization row: the parent",
    personal: model(GONE, "high"),
    want: { modelConfigId: PARENT, reasoningEffort: "low", source: "parent" },
  },
  {
    name: "chat_default stops override resolution: the organization row is not read",
    personal: { mode: "chat_default", modelConfigId: null, reasoningEffort: null },
    organization: ORG,
    want: { modelConfigId: PARENT, reasoningEffort: "low", source: "parent" },
  },
  {
    name: "deployment_default defers to the organization",
    personal: { mode: "deployment_default", modelConfigId: null, reasoningEffort: null },
    organization: ORG,
    want: { modelConfigId: ORG, reasoningEffort: null, source: "organization" },
  },
  {
    name: "deployment_default with no organization row: the parent",
    personal: { mode: "deployment_default", modelConfigId: null, reasoningEffort: null },
    want: { modelConfigId: PARENT, reasoningEffort: "low", source: "parent" },
  },
  {
    name: "no personal row: the organization",
    organization: ORG,
    want: { modelConfigId: ORG, reasoningEffort: null, source: "organization" },
  },
  {
    name: "unusable organization row falls through to the parent",
    organization: GONE,
    want: { modelConfigId: PARENT, reasoningEffort: "low", source: "parent" },
  },
  {
    name: "a parent model no longer usable: the organization's default, the parent's effort kept",
    parent: { modelConfigId: GONE, reasoningEffort: "high" },
    want: { modelConfigId: null, reasoningEffort: "high", source: "parent" },
  },
  {
    name: "explicit effort with an organization model",
    explicit: { reasoningEffort: "none" },
    organization: ORG,
    want: { modelConfigId: ORG, reasoningEffort: "none", source: "organization" },
  },
];

describe("resolveSubagentModel: the spec's precedence", () => {
  it.each(cases)("$name", (c) => {
    const got = resolveSubagentModel({
      explicit: c.explicit ?? {},
      personal: c.personal ?? null,
      organization: c.organization ? { modelConfigId: c.organization } : null,
      parent: c.parent ?? parent,
      usable: (id) => id !== GONE,
    });
    expect(got).toEqual(c.want);
  });
});
