// What one operation on the internal endpoint may ask for, checked before it runs (graphql-armor):
// the endpoint applies them as Yoga plugins, the operator CLI running in-process as validation rules.
import { costLimitPlugin, costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin, maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin, maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import type { ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Introspection is left out of each measure (GraphiQL's own is deep). */
export const OPERATION_LIMITS = { depth: 10, cost: 50_000, aliases: 15 };

const depth = { n: OPERATION_LIMITS.depth, exposeLimits: true };
const cost = { maxCost: OPERATION_LIMITS.cost, exposeLimits: true };
const aliases = { n: OPERATION_LIMITS.aliases, exposeLimits: true };

export const operationLimitPlugins: Plugin[] = [maxDepthPlugin(depth), costLimitPlugin(cost), maxAliasesPlugin(aliases)];

export const operationLimitRules: ValidationRule[] = [maxDepthRule(depth), costLimitRule(cost), maxAliasesRule(aliases)];
