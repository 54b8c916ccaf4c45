// `smslink config`: the local store of profiles (base URL, API key,
// defaults); its verbs are a file each beside this one.

import type { GroupDef } from '../core/command.js';
import { NAMES } from './setting.js';

export const CONFIG: GroupDef = {
  path: ['config'],
  group: true,
  summary: 'Manage settings and profiles (base URL, API key, defaults)',
  about: `Settings: ${NAMES}.
Precedence: flag > environment (SMSLINK_API_KEY, SMSLINK_BASE_URL,
SMSLINK_PROFILE, SMSLINK_OUTPUT, SMSLINK_TIMEOUT, SMSLINK_RETRIES,
SMSLINK_SENDER) > profile > default.
The file is written with mode 0600; SMSLINK_CONFIG_DIR moves it.`,
  examples: [
    'smslink config set base-url https://api.example.com',
    'smslink login                # asks for the base URL and key, checks, saves',
    'smslink config set api-key   # asks; nothing is shown as you paste the key',
    'echo "$KEY" | smslink config set api-key -   # from a script',
    'smslink --profile staging config set base-url https://staging.example.com',
    'smslink config use staging',
    'smslink config list',
  ],
};
