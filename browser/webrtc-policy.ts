/**
 * WebRTC must not send UDP past the guard proxy (which sees TCP only): a page's RTCPeerConnection
 * could otherwise send STUN and TURN datagrams to any loopback or private UDP port. Chromium runs
 * with WebRTC limited to proxied connections, which the guard checks.
 *
 * Operators can add Chromium flags of their own (Debian's /etc/chromium.d/, a wrapper named by
 * CHROMIUM_PATH). Flags put before Trawl's lose, as Chromium keeps a switch's last value; flags
 * put after them would win, and silently reopen the hole. So each launched browser's actual
 * command line is read back and a browser whose policy is not ours is refused.
 */

export const WEBRTC_POLICY = 'disable_non_proxied_udp';

/**
 * The launch flag. (`--force-webrtc-ip-handling-policy`, which some guides name, is ignored by
 * Chromium 156: measured with a loopback UDP listener.)
 */
export const WEBRTC_POLICY_ARG = `--webrtc-ip-handling-policy=${WEBRTC_POLICY}`;

/** Both spellings Chromium reads, with either switch prefix it accepts on POSIX (`--` or `-`). */
const POLICY_SWITCH = /^--?(force-)?webrtc-ip-handling-policy(?:=(.*))?$/;

/**
 * Why the browser's command line does not keep WebRTC to proxied connections, or undefined when
 * it does. `argv` is the browser process's own argument list, wrappers' additions included.
 */
export function webRtcPolicyProblem(argv: readonly string[]): string | undefined {
  let effective: string | undefined;
  for (const arg of argv) {
    const match = POLICY_SWITCH.exec(arg);
    if (!match) continue;
    const value = match[2] ?? '';
    // The force switch would take precedence over the plain one on builds that honour it.
    if (match[1] && value !== WEBRTC_POLICY) return `${arg} overrides ${WEBRTC_POLICY_ARG}`;
    if (!match[1]) effective = value;
  }
  if (effective === WEBRTC_POLICY) return undefined;
  return effective === undefined ? `${WEBRTC_POLICY_ARG} is missing` : `--webrtc-ip-handling-policy=${effective} comes after ${WEBRTC_POLICY_ARG}`;
}
