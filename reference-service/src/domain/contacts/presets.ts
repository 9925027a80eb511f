import type { ContactPreset } from '@svc-kit/contract';

/**
 * The permission switches a preset stands for (our choice; the spec names presets, not their content).
 * Setting a preset replaces the switches with these; updateContact may then set switches one by one.
 */
export const PRESET_PERMISSIONS: Record<ContactPreset, readonly string[]> = {
  muted: [],
  basic: ['messages:receive'],
  colleague: ['messages:receive', 'tools:list'],
  close: ['messages:receive', 'tools:list', 'tools:call'],
};

export const DEFAULT_PRESET: ContactPreset = 'basic';
export const DEFAULT_TRUST = 'messages_only';
