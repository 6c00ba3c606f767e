/*
 * paths.h - where the plugins and ruleset content are when no setting
 * names them.
 */
#ifndef REFD_PATHS_H
#define REFD_PATHS_H

#include <stddef.h>

/*
 * The default plugin and ruleset directories, found from the running
 * program's own path so that a tree installed under any PREFIX or DESTDIR
 * finds its own files: bin/../plugins and bin/../rulesets in the build
 * tree, bin/../lib/refd/plugins and bin/../share/refd/rulesets when
 * installed, else the directories compiled in.  Writes both (absolute)
 * into the caller's buffers; never fails.
 */
void paths_default(char *plugins, size_t pn, char *rulesets, size_t rn);

/*
 * The web viewer's directory: bin/../web in the build tree,
 * bin/../share/refd/web when installed, else the one compiled in.
 */
void paths_web(char *out, size_t n);

#endif
