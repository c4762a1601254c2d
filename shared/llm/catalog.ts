// The model providers the service can call.
export const PROVIDER_STATUSES = ['active', 'beta', 'decommissioned'] as const;
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];

export interface ProviderInfo {
  name: string;
  display_name: string;
  description: string;
  docs_url: string;
  key_placeholder: string;
  base_url_hint: string;
  status: ProviderStatus;
  decommission_note: string;
  successor_provider: string;
  allow_base_url_override: boolean;
  requires_key: boolean;
  /** What the provider must support for extraction: json_mode (JSON output) or tool_use (forced tool). */
  required_features: string[];
  /** Which SDK speaks to it. */
  api: 'openai' | 'anthropic';
  /**
   * The provider's official endpoint: where a key stored or configured without a base_url goes. Given for every
   * provider that has one, so the SDKs never fall back to their own defaults (which read OPENAI_BASE_URL and
   * ANTHROPIC_BASE_URL from the environment). openai_compatible has none: it always needs a base_url.
   */
  default_base_url?: string;
}

export const PROVIDERS: readonly ProviderInfo[] = [
  {
    name: 'openai',
    display_name: 'OpenAI',
    description: 'OpenAI chat completions with JSON-schema structured output.',
    docs_url: 'https://platform.openai.com/docs/guides/structured-outputs',
    key_placeholder: 'sk-...',
    base_url_hint: 'https://api.openai.com/v1',
    status: 'active',
    decommission_note: '',
    successor_provider: '',
    allow_base_url_override: true,
    requires_key: true,
    required_features: ['json_mode'],
    api: 'openai',
    default_base_url: 'https://api.openai.com/v1',
  },
  {
    name: 'anthropic',
    display_name: 'Anthropic',
    description: 'Anthropic messages API; structured output through a forced tool call.',
    docs_url: 'https://docs.anthropic.com/en/docs/build-with-claude/tool-use',
    key_placeholder: 'sk-ant-...',
    base_url_hint: 'https://api.anthropic.com',
    status: 'active',
    decommission_note: '',
    successor_provider: '',
    allow_base_url_override: true,
    requires_key: true,
    required_features: ['tool_use'],
    api: 'anthropic',
    default_base_url: 'https://api.anthropic.com',
  },
  {
    name: 'openrouter',
    display_name: 'OpenRouter',
    description: 'Many vendors through one OpenAI-compatible endpoint; models are named vendor/model.',
    docs_url: 'https://openrouter.ai/docs',
    key_placeholder: 'sk-or-...',
    base_url_hint: 'https://openrouter.ai/api/v1',
    status: 'active',
    decommission_note: '',
    successor_provider: '',
    allow_base_url_override: false,
    requires_key: true,
    required_features: ['json_mode'],
    api: 'openai',
    default_base_url: 'https://openrouter.ai/api/v1',
  },
  {
    name: 'ollama',
    display_name: 'Ollama',
    description: 'A local model runtime through its OpenAI-compatible endpoint; no key.',
    docs_url: 'https://github.com/ollama/ollama/blob/main/docs/openai.md',
    key_placeholder: '',
    base_url_hint: 'http://127.0.0.1:11434/v1',
    status: 'beta',
    decommission_note: '',
    successor_provider: '',
    allow_base_url_override: true,
    requires_key: false,
    required_features: ['json_mode'],
    api: 'openai',
    default_base_url: 'http://127.0.0.1:11434/v1',
  },
  {
    name: 'openai_compatible',
    display_name: 'OpenAI-compatible endpoint',
    description:
      'Any server speaking the OpenAI chat completions API (vLLM, LM Studio, gateways); needs base_url.',
    docs_url: 'https://platform.openai.com/docs/api-reference/chat',
    key_placeholder: 'depends on the endpoint',
    base_url_hint: 'https://your-endpoint.example/v1',
    status: 'beta',
    decommission_note: '',
    successor_provider: '',
    allow_base_url_override: true,
    requires_key: false,
    required_features: ['json_mode'],
    api: 'openai',
  },
  {
    name: 'anthropic_text_completions',
    display_name: 'Anthropic Text Completions (legacy)',
    description: "Anthropic's legacy text completions API.",
    docs_url: 'https://docs.anthropic.com/en/api/complete',
    key_placeholder: 'sk-ant-...',
    base_url_hint: 'https://api.anthropic.com',
    status: 'decommissioned',
    decommission_note:
      'The text completions API is legacy and has no structured output; use the messages API.',
    successor_provider: 'anthropic',
    allow_base_url_override: false,
    requires_key: true,
    required_features: [],
    api: 'anthropic',
  },
];

export const PROVIDER_NAMES = PROVIDERS.map((p) => p.name);

export function providerInfo(name: string): ProviderInfo | undefined {
  return PROVIDERS.find((p) => p.name === name);
}

/** Providers a chain or a key may name. */
export const usableProvider = (name: string) => {
  const info = providerInfo(name);
  return info !== undefined && info.status !== 'decommissioned';
};
