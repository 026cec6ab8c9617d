/*
 * vql_interrupt: a SQLite extension that lets one thread stop a statement another thread is
 * running. better-sqlite3 exposes neither sqlite3_interrupt() nor a progress handler (its build
 * defines SQLITE_OMIT_PROGRESS_CALLBACK), so a query that ran over its time budget could only be
 * abandoned, not stopped. Loaded into every worker connection, this extension records the
 * connection in a process-wide slot table; any other connection in the process (the pool's
 * control connection on the main thread) can then interrupt it by slot number.
 *
 * A worker "arms" its slot with the token of the call it is about to run; an interrupt names the
 * slot and the token, and is ignored unless the slot still runs that call. So a late interrupt
 * for a call that already finished can never stop the next call on the same connection.
 *
 * SQL functions:
 *   vql_slot()                  -> this connection's slot number
 *   vql_arm(token)              -> 1; the call with this token runs on this connection now
 *   vql_interrupt(slot, token)  -> 1 when the slot was running that token and was interrupted, else 0
 *
 * sqlite3_interrupt() is documented as safe to call from any thread while the connection runs.
 * A slot is released when its connection closes (the destructor of vql_slot's user data), under
 * the same mutex the interrupt takes, so an interrupt never reaches a closed connection.
 */
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include <pthread.h>
#include <stdint.h>

#define MAX_SLOTS 4096

typedef struct { sqlite3 *db; int64_t token; } Slot;
typedef struct { int slot; sqlite3 *db; } Connection;

static Slot slots[MAX_SLOTS];
static int next_slot = 0;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

static void release_connection(void *p) {
  Connection *c = (Connection *)p;
  pthread_mutex_lock(&slots_lock);
  if (slots[c->slot].db == c->db) {
    slots[c->slot].db = 0;
    slots[c->slot].token = 0;
  }
  pthread_mutex_unlock(&slots_lock);
  sqlite3_free(c);
}

static void fn_slot(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_int(ctx, ((Connection *)sqlite3_user_data(ctx))->slot);
}

static void fn_arm(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  Connection *c = (Connection *)sqlite3_user_data(ctx);
  pthread_mutex_lock(&slots_lock);
  slots[c->slot].token = sqlite3_value_int64(argv[0]);
  pthread_mutex_unlock(&slots_lock);
  sqlite3_result_int(ctx, 1);
}

static void fn_interrupt(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int slot = sqlite3_value_int(argv[0]);
  int64_t token = sqlite3_value_int64(argv[1]);
  int stopped = 0;
  pthread_mutex_lock(&slots_lock);
  if (slot >= 0 && slot < MAX_SLOTS && token != 0 && slots[slot].db != 0 && slots[slot].token == token) {
    sqlite3_interrupt(slots[slot].db);
    stopped = 1;
  }
  pthread_mutex_unlock(&slots_lock);
  sqlite3_result_int(ctx, stopped);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_extension_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  Connection *c = sqlite3_malloc(sizeof(Connection));
  if (!c) return SQLITE_NOMEM;
  c->db = db;
  c->slot = -1;
  pthread_mutex_lock(&slots_lock);
  for (int i = 0; i < MAX_SLOTS; i++) {
    int s = (next_slot + i) % MAX_SLOTS;
    if (slots[s].db == 0) {
      slots[s].db = db;
      slots[s].token = 0;
      c->slot = s;
      next_slot = (s + 1) % MAX_SLOTS;
      break;
    }
  }
  pthread_mutex_unlock(&slots_lock);
  if (c->slot < 0) {
    sqlite3_free(c);
    *error = sqlite3_mprintf("vql_interrupt: all %d slots are in use", MAX_SLOTS);
    return SQLITE_ERROR;
  }
  /* vql_slot owns the Connection: SQLite destroys it when the connection closes. */
  int rc = sqlite3_create_function_v2(db, "vql_slot", 0, SQLITE_UTF8, c, fn_slot, 0, 0, release_connection);
  if (rc == SQLITE_OK) rc = sqlite3_create_function_v2(db, "vql_arm", 1, SQLITE_UTF8, c, fn_arm, 0, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function_v2(db, "vql_interrupt", 2, SQLITE_UTF8, 0, fn_interrupt, 0, 0, 0);
  return rc;
}
