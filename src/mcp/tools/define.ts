import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ToolFailure } from '../selfClient.js';
import type { ToolDeps } from './deps.js';

/** A tool built once per handler; each request's server registers it with that request's caller. */
export interface ToolDefinition {
  name: string;
  config: { title: string; description: string; inputSchema: z.ZodObject; outputSchema: z.ZodObject; annotations: ToolAnnotations };
  run(deps: ToolDeps, args: unknown): Promise<CallToolResult>;
}

/** Builds the input and output schemas once, so a request pays only for registering them. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  name: string,
  config: { title: string; description: string; inputSchema: I; outputSchema: O; annotations: ToolAnnotations },
  run: (deps: ToolDeps, args: z.output<z.ZodObject<I>>) => Promise<CallToolResult>,
): ToolDefinition {
  const inputSchema = z.object(config.inputSchema);
  return {
    name,
    config: { ...config, inputSchema, outputSchema: z.object(config.outputSchema) },
    run: async (deps, args) => {
      const parsed = inputSchema.safeParse(args ?? {});
      if (!parsed.success) throw new ToolFailure(invalidArguments(parsed.error, args));
      return run(deps, parsed.data);
    },
  };
}

/** One sentence per bad argument, naming it; an agent reads this, not the schema library's issue list. */
function invalidArguments(error: z.ZodError, args: unknown): string {
  return error.issues
    .map((issue) => {
      const name = issue.path.join('.') || 'arguments';
      const given = issue.path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key], args);
      return given === undefined ? `The ${name} argument is missing.` : `The ${name} argument is invalid: ${issue.message.replace(/\.$/, '')}.`;
    })
    .join(' ');
}
