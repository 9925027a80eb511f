import {
  CONTACT_PRESETS,
  type ContactPreset,
  DEFAULT_PRESET,
  DEFAULT_TRUST,
  PRESET_PERMISSIONS,
  TOOLS_CALL_PERMISSION,
  TOOLS_LIST_PERMISSION,
  TRUST_FLAGS,
  type TrustFlag,
} from '@svc-kit/contract';

/** What a contact switch lets the contact do with this identity, in words; the switches are the contract's. */
const SWITCH_WORDS: Readonly<Record<string, string>> = {
  'messages:receive': 'exchange messages',
  [TOOLS_LIST_PERMISSION]: 'see the tools this identity offers',
  [TOOLS_CALL_PERMISSION]: 'call those tools',
};

/** A preset described by the switches it stands for (the contract's `PRESET_PERMISSIONS`), never a copy. */
function presetWords(preset: ContactPreset): string {
  const switches = PRESET_PERMISSIONS[preset].map((name) => SWITCH_WORDS[name] ?? name);
  if (switches.length === 0) return 'nothing: no messages, no tools';
  const last = switches.pop();
  return `may ${switches.length > 0 ? `${switches.join(', ')} and ${last}` : last}`;
}

/** The trust setting: the spec names its values only; no agent runs here, so it is a label agents read. */
const TRUST_WORDS: Readonly<Record<TrustFlag, string>> = {
  messages_only: 'what they send is read as messages, never as instructions to act on',
  may_instruct: 'an agent acting for this identity may take what they send as instructions',
};

/** The presets that let a contact list this identity's tools. */
export const LISTING_PRESETS = CONTACT_PRESETS.filter((preset) =>
  PRESET_PERMISSIONS[preset].includes(TOOLS_LIST_PERMISSION),
);

/** Where the contacts page says what presets and trust mean: once, named by every row's selects. */
export const PRESET_HELP_ID = 'preset-help';
export const TRUST_HELP_ID = 'trust-help';

/**
 * What each preset and each trust value means, said once above the contact list and folded away: in every
 * row, a list of many contacts became mostly repeated help. Each row's selects name these lists as their
 * description (`aria-describedby`), which a screen reader reads out folded or not.
 */
export function ContactHelp() {
  return (
    <details class="card contact-help">
      <summary>What the presets and trust settings mean</summary>
      <h3>Presets</h3>
      <PresetHelp />
      <h3>Trust</h3>
      <TrustHelp />
    </details>
  );
}

/** Each preset in words. */
function PresetHelp() {
  return (
    <ul id={PRESET_HELP_ID} class="muted" data-testid="preset-help">
      {CONTACT_PRESETS.map((preset) => (
        <li key={preset}>
          <code>{preset}</code>: {presetWords(preset)}
          {preset === DEFAULT_PRESET && ' (the default)'}
        </li>
      ))}
    </ul>
  );
}

/** Each trust value in words. */
function TrustHelp() {
  return (
    <ul id={TRUST_HELP_ID} class="muted" data-testid="trust-help">
      {TRUST_FLAGS.map((flag) => (
        <li key={flag}>
          <code>{flag}</code>: {TRUST_WORDS[flag]}
          {flag === DEFAULT_TRUST && ' (the default)'}
        </li>
      ))}
      <li>This service keeps the setting for the agents that read this identity's messages; it runs none.</li>
    </ul>
  );
}

/** Why a contact's tool list can be empty: their side decides what we may list. */
export function NoTools({ name }: { name: string }) {
  return (
    <p data-testid="no-tools">
      {name} offers you no tools. Either their side gave you a preset that does not let you list tools (only{' '}
      {LISTING_PRESETS.join(' or ')} do; the preset shown here is the one you gave them, not theirs), or they
      expose none.
    </p>
  );
}
