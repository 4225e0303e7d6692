-- glibc's malloc settings of a worker: the master runs with a mmap threshold
-- of 4 KiB, so that the configuration a reload replaces goes back to the
-- kernel instead of staying resident in every process forked after it
-- (src/dataplane/nginx/process/masterMalloc.ts). A worker inherits that
-- setting with its fork; there each request's 4 KiB pool and TLS buffer would
-- be a mapping of its own, so before it serves anything it sets glibc's
-- defaults again (128 KiB, 65,536 mappings). Set explicitly, the threshold no
-- longer grows with large frees as glibc's untouched default would; neither
-- setting changes what a request allocates.
--   init_worker_by_lua_block { portico_worker_malloc.init_worker() }
local ffi = require("ffi")

local ngx = ngx

ffi.cdef([[
int mallopt(int param, int value);
]])

local _M = {}

-- glibc's malloc.h.
local M_MMAP_THRESHOLD = -3
local M_MMAP_MAX = -4
local DEFAULT_MMAP_THRESHOLD = 128 * 1024
local DEFAULT_MMAP_MAX = 65536

function _M.init_worker()
  -- mallopt returns 1 on success.
  if ffi.C.mallopt(M_MMAP_THRESHOLD, DEFAULT_MMAP_THRESHOLD) ~= 1 or ffi.C.mallopt(M_MMAP_MAX, DEFAULT_MMAP_MAX) ~= 1 then
    ngx.log(ngx.WARN, "cannot set glibc's malloc defaults in this worker")
  end
end

return _M
