-- Whether a password matches one htpasswd hash, in the formats nginx's
-- auth_basic_user_file accepts (ngx_crypt): `$apr1$` (Apache MD5), `{SHA}`,
-- `{SSHA}`, `{PLAIN}`, and everything else through the C library's crypt,
-- here libxcrypt's crypt_rn via LuaJIT FFI (Debian 12; tested: bcrypt `$2y$`/
-- `$2b$`, `$5$`, `$6$`, `$1$`, DES; the library's other formats, such as
-- yescrypt `$y$`, go the same way). Loaded by the master in init_by_lua, so
-- workers never open the library file.
local ffi = require("ffi")
local bit = require("bit")

local ngx = ngx
local md5_bin = ngx.md5_bin
local sha1_bin = ngx.sha1_bin
local encode_base64 = ngx.encode_base64
local decode_base64 = ngx.decode_base64
local string_byte = string.byte
local string_sub = string.sub
local string_find = string.find
local math_min = math.min
local bor = bit.bor
local bxor = bit.bxor
local band = bit.band
local rshift = bit.rshift
local lshift = bit.lshift
local table_concat = table.concat
local ffi_string = ffi.string
local pcall = pcall

local _M = {}

ffi.cdef([[
char *crypt_rn(const char *phrase, const char *setting, void *data, int size);
]])

-- libxcrypt's struct crypt_data is 32768 bytes; crypt_rn takes the size, so a smaller libc fails instead of overflowing.
local CRYPT_DATA_SIZE = 32768
local libcrypt_loaded, libcrypt = pcall(ffi.load, "libcrypt.so.1")
local crypt_data = nil -- per worker, allocated at the first crypt() hash (zeroed: crypt_rn needs that once)

-- Whether crypt(3) hashes can be checked at all (for tests and the log).
_M.crypt_available = libcrypt_loaded

-- Equal strings, in a time that depends only on their lengths.
local function equal(a, b)
  if #a ~= #b then
    return false
  end
  local difference = 0
  for i = 1, #a do
    difference = bor(difference, bxor(string_byte(a, i), string_byte(b, i)))
  end
  return difference == 0
end
_M.equal = equal

local ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

local function to64(parts, value, count)
  for _ = 1, count do
    local index = band(value, 0x3f) + 1
    parts[#parts + 1] = string_sub(ITOA64, index, index)
    value = rshift(value, 6)
  end
end

-- Poul-Henning Kamp's MD5-crypt with Apache's magic `$apr1$` (the same as `$1$` but for the magic).
local function apr1(password, salt)
  local magic = "$apr1$"
  local final = md5_bin(password .. salt .. password)
  local context = { password, magic, salt }
  local length = #password
  while length > 0 do
    context[#context + 1] = string_sub(final, 1, math_min(length, 16))
    length = length - 16
  end
  local first = string_sub(password, 1, 1)
  length = #password
  while length > 0 do
    context[#context + 1] = band(length, 1) == 1 and "\0" or first
    length = rshift(length, 1)
  end
  final = md5_bin(table_concat(context))
  for i = 0, 999 do
    local odd = band(i, 1) == 1
    local round = { odd and password or final }
    if i % 3 ~= 0 then
      round[#round + 1] = salt
    end
    if i % 7 ~= 0 then
      round[#round + 1] = password
    end
    round[#round + 1] = odd and final or password
    final = md5_bin(table_concat(round))
  end
  local b = { string_byte(final, 1, 16) }
  local parts = { magic, salt, "$" }
  to64(parts, bor(lshift(b[1], 16), lshift(b[7], 8), b[13]), 4)
  to64(parts, bor(lshift(b[2], 16), lshift(b[8], 8), b[14]), 4)
  to64(parts, bor(lshift(b[3], 16), lshift(b[9], 8), b[15]), 4)
  to64(parts, bor(lshift(b[4], 16), lshift(b[10], 8), b[16]), 4)
  to64(parts, bor(lshift(b[5], 16), lshift(b[11], 8), b[6]), 4)
  to64(parts, b[12], 2)
  return table_concat(parts)
end
_M.apr1 = apr1

local function crypt(password, hash)
  if not libcrypt_loaded or string_find(password, "\0", 1, true) then
    return nil -- C strings end at NUL: "a\0b" must not pass as "a"
  end
  if crypt_data == nil then
    crypt_data = ffi.new("char[?]", CRYPT_DATA_SIZE)
  end
  local result = libcrypt.crypt_rn(password, hash, crypt_data, CRYPT_DATA_SIZE)
  if result == nil then
    return nil
  end
  local text = ffi_string(result)
  -- libxcrypt's failure tokens start with "*"; a real hash never does.
  if string_sub(text, 1, 1) == "*" then
    return nil
  end
  return text
end

-- Whether checking `hash` costs more than a cache lookup: everything but the
-- single-digest `{...}` formats (apr1 is 1000 MD5 rounds, crypt's are slower).
function _M.is_costly(hash)
  return string_sub(hash, 1, 1) ~= "{"
end

function _M.verify(password, hash)
  if hash == "" then
    return false
  end
  if string_sub(hash, 1, 6) == "$apr1$" then
    local salt_end = string_find(hash, "$", 7, true)
    local salt = string_sub(hash, 7, salt_end and salt_end - 1 or #hash)
    return equal(apr1(password, string_sub(salt, 1, 8)), hash)
  end
  if string_sub(hash, 1, 7) == "{PLAIN}" then
    return equal(password, string_sub(hash, 8))
  end
  if string_sub(hash, 1, 5) == "{SHA}" then
    return equal(encode_base64(sha1_bin(password)), string_sub(hash, 6))
  end
  if string_sub(hash, 1, 6) == "{SSHA}" then
    local decoded = decode_base64(string_sub(hash, 7))
    if decoded == nil or #decoded <= 20 then
      return false
    end
    return equal(sha1_bin(password .. string_sub(decoded, 21)), string_sub(decoded, 1, 20))
  end
  local computed = crypt(password, hash)
  return computed ~= nil and equal(computed, hash)
end

return _M
