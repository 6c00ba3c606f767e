/*
 * refctl.h - refctl subcommands, one file each group:
 *   refctl.c         dispatch, client ops over the protocol, watch, play
 *   refctl_check.c   check-plugin (the conformance checker)
 *   refctl_verify.c  verify and replay (offline, no daemon)
 *   refctl_web.c     web (the viewer's pages over loopback HTTP)
 * Each returns the process exit status.
 */
#ifndef REFD_REFCTL_H
#define REFD_REFCTL_H

int cmd_check_plugin(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_log_info(int argc, char **argv);
int cmd_web(int argc, char **argv, const char *cmd_ep, const char *ev_ep);

#endif
