/* tg_block_names.c - see tg_block_names.h. */
#include "tg_block_names.h"

#include <stdio.h>
#include <string.h>

/* Writes into `out` (room for strlen(name) + 1) the name of the method or
 * block a block belongs to, as hub_split.rb reads it: "Foo#bar" for "block
 * in Foo#bar", "block in Foo#bar" for "block (2 levels) in Foo#bar",
 * "block (2 levels) in Foo#bar" for "block (3 levels) ...". False for a
 * name that is not a block's. A block that shares its line with another
 * of its level is named by its column, "block (2 levels) in Foo#bar
 * (column 17)", or its order, "(2nd on line 7)" (naming.c): that part is
 * the block's own, not its owner's, and is left out. */
bool tg_block_owner(const char *name, char *out)
{
    if (strncmp(name, "block in ", 9) == 0) {
        strcpy(out, name + 9);
    } else {
        unsigned levels;
        int used = 0;
        if (sscanf(name, "block (%u levels) in %n", &levels, &used) != 1 || used == 0 || levels < 2) return false;
        if (levels == 2) sprintf(out, "block in %s", name + used);
        else sprintf(out, "block (%u levels) in %s", levels - 1, name + used);
    }
    char *tail = strrchr(out, '(');
    size_t n = strlen(out);
    if (tail && tail > out && tail[-1] == ' ' && n > 0 && out[n - 1] == ')') {
        unsigned a, b;
        char th[3];
        int end = 0;
        if ((sscanf(tail, "(column %u)%n", &a, &end) == 1 && tail[end] == '\0') ||
            (sscanf(tail, "(%u%2[a-z] on line %u)%n", &a, th, &b, &end) == 3 && tail[end] == '\0'))
            tail[-1] = '\0';
    }
    return true;
}

