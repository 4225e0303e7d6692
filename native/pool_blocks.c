// nginx's configuration pool blocks without glibc's page of padding, preloaded
// into nginx's master (src/dataplane/nginx/process/masterMalloc.ts).
//
// The master parses nginx.conf into pools of 16 KiB blocks, each one
// posix_memalign(16, 16384). It runs with glibc's mmap threshold at 4 KiB so
// that the cycle a reload replaces goes back to the kernel; but a mapped chunk
// carries glibc's header, so each block took a mapping of 20 KiB, a page
// more than it holds, and the kernel one more mapping to copy at every fork
// and to unmap at every reload. At 10,000 Ingresses that was 17 % of nginx's
// memory (docs/scale.md, "nginx's pool blocks").
//
// Here the master's blocks are slots of one reserved region instead: a slot
// is handed out without a system call, and a freed one gives its pages back
// (MADV_DONTNEED) and is reused. Everything else, and every allocation of a
// forked process (the workers keep glibc's own ways), goes to glibc; a block
// of the region freed in a worker gives its pages back there.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define BLOCK_SIZE ((size_t)16384)
// 4 GiB of address space (reserved, never committed until touched): the
// blocks of two cycles (a reload) at about 35,000 Ingresses. Past that, glibc's.
#define SLOTS ((size_t)256 * 1024)

extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_malloc(size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);

static char *region;
static uint32_t *free_slots;
static size_t free_count;
static size_t next_slot;
static int forked;
static volatile char lock;

static void take(void) {
  while (__atomic_test_and_set(&lock, __ATOMIC_ACQUIRE)) {
  }
}

static void release(void) { __atomic_clear(&lock, __ATOMIC_RELEASE); }

static void release_in_child(void) {
  forked = 1;
  release();
}

__attribute__((constructor)) static void reserve_region(void) {
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void *blocks = mmap(NULL, SLOTS * BLOCK_SIZE, PROT_READ | PROT_WRITE, flags, -1, 0);
  void *slots = mmap(NULL, SLOTS * sizeof(uint32_t), PROT_READ | PROT_WRITE, flags, -1, 0);
  if (blocks == MAP_FAILED || slots == MAP_FAILED) {
    // Under strict overcommit, say: nginx runs with glibc's blocks.
    if (blocks != MAP_FAILED) munmap(blocks, SLOTS * BLOCK_SIZE);
    if (slots != MAP_FAILED) munmap(slots, SLOTS * sizeof(uint32_t));
    return;
  }
  // A huge page would hold 2 MiB for the first 16 KiB written into it.
  madvise(blocks, SLOTS * BLOCK_SIZE, MADV_NOHUGEPAGE);
  free_slots = slots;
  region = blocks;
  pthread_atfork(take, release, release_in_child);
}

static int in_region(const void *pointer) {
  const char *at = pointer;
  return region != NULL && at >= region && at < region + SLOTS * BLOCK_SIZE;
}

/** A slot's address, or NULL when every slot is taken. */
static void *take_slot(void) {
  void *block = NULL;
  take();
  if (free_count > 0) {
    block = region + free_slots[--free_count] * BLOCK_SIZE;
  } else if (next_slot < SLOTS) {
    block = region + next_slot++ * BLOCK_SIZE;
  }
  release();
  return block;
}

static void give_back(void *block) {
  madvise(block, BLOCK_SIZE, MADV_DONTNEED);
  take();
  // A forked process never takes slots, so it need not remember freed ones.
  if (!forked) free_slots[free_count++] = (uint32_t)(((char *)block - region) / BLOCK_SIZE);
  release();
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  if (size == BLOCK_SIZE && alignment <= 4096 && region != NULL && !forked) {
    void *block = take_slot();
    if (block != NULL) {
      *out = block;
      return 0;
    }
  }
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *out = pointer;
  return 0;
}

void free(void *pointer) {
  if (in_region(pointer)) {
    give_back(pointer);
  } else {
    __libc_free(pointer);
  }
}

// nginx never resizes a pool block; anything else that would is served as glibc would.
void *realloc(void *pointer, size_t size) {
  if (!in_region(pointer)) return __libc_realloc(pointer, size);
  void *moved = __libc_malloc(size);
  if (moved == NULL) return NULL;
  memcpy(moved, pointer, size < BLOCK_SIZE ? size : BLOCK_SIZE);
  give_back(pointer);
  return moved;
}
