// What the config verbs share: a setting named as the user types it
// (base-url), and its value as shown (the API key masked).

import { Argument } from 'commander';
import { maskKey, SETTINGS, settingByName } from '../../config/resolve.js';
import { SETTING_KEYS, type SettingKey } from '../../config/file.js';
import { completing } from '../core/flags.js';
import { UsageError } from '../../exit-codes.js';
import { unknownName } from '../../output/words.js';

/** The settings by the names typed on the command line. */
export const NAMES = SETTING_KEYS.map((k) => SETTINGS[k].name).join(', ');

/** The <name> argument of set, get and unset, completed from the names. */
export const settingArgument = () => completing(new Argument('<name>', NAMES), SETTING_KEYS.map((k) => SETTINGS[k].name));

export function keyOf(name: string): SettingKey {
  const key = settingByName(name);
  if (!key) throw new UsageError(`${unknownName('setting', name, SETTING_KEYS.map((k) => SETTINGS[k].name))}; settings: ${NAMES}`);
  return key;
}

export function show(key: SettingKey, value: string | undefined): string {
  if (value === undefined) return '';
  return SETTINGS[key].secret ? maskKey(value) : value;
}
