-- Unit tests of lua/portico's pure pieces, run inside the test nginx (so
-- ngx.crc32_long, ngx.md5, ngx.var and ngx.cookie_time are the real ones):
--   location = /lua-unit { content_by_lua_block { require("portico_unit").run() } }
-- Test configuration only. Prints "ok <name>" / "not ok <name>: <error>" lines
-- and a last line "passed N failed M". Expects the request /lua-unit?key=abc.
local expression = require("portico.balancer.expression")
local chash = require("portico.balancer.chash")
local chashsubset = require("portico.balancer.chashsubset")
local sticky = require("portico.balancer.sticky")

local _M = {}

local function eq(actual, expected, what)
  if actual ~= expected then
    error((what or "value") .. ": expected " .. tostring(expected) .. ", got " .. tostring(actual), 2)
  end
end

local function dump(value)
  if type(value) ~= "table" then
    return type(value) == "string" and string.format("%q", value) or tostring(value)
  end
  local parts = {}
  for i, item in ipairs(value) do
    parts[i] = dump(item)
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

local function peers(count, first)
  local list = {}
  for i = first or 1, (first or 1) + count - 1 do
    list[#list + 1] = { key = "10.0.0." .. i .. ":8080", host = "10.0.0." .. i, port = 8080 }
  end
  return list
end

local function assignment(ring, keys)
  local map = {}
  for i = 1, keys do
    map[i] = chash.ring_find(ring, "key-" .. i).key
  end
  return map
end

local tests = {}

tests["expression: parse"] = function()
  eq(dump(expression.parse("$request_uri")), '{{"request_uri"}}')
  eq(dump(expression.parse("${host}-$arg_key/x")), '{{"host"},"-",{"arg_key"},"/x"}')
  eq(dump(expression.parse("plain")), '{"plain"}')
  eq(dump(expression.parse("")), "{}")
  eq(dump(expression.parse("a$")), '{"a$"}', "a lone $ is literal")
  eq(dump(expression.parse("${x")), '{"${x"}', "an unterminated ${ is literal")
  eq(dump(expression.parse("x$$y")), '{"x$",{"y"}}')
  eq(dump(expression.parse("$1.$2")), "{{1},\".\",{2}}", "captures are numbers")
  eq(dump(expression.parse("$a${b}c")), '{{"a"},{"b"},"c"}')
end

tests["expression: evaluate looks variables up, never runs code"] = function()
  eq(expression.evaluate(expression.parse("$arg_key")), "abc")
  eq(expression.evaluate(expression.parse("k:${arg_key}:$arg_missing:$no_such_variable")), "k:abc::")
  eq(expression.evaluate(expression.parse("os.exit(1)")), "os.exit(1)")
  eq(expression.evaluate(expression.parse("$request_method $uri")), "GET /lua-unit")
  eq(expression.evaluate(expression.parse("")), "")
end

tests["ring: every node gets a fair share of keys"] = function()
  local ring = chash.ring_new(peers(5))
  local counts = {}
  for _, key in ipairs(assignment(ring, 5000)) do
    counts[key] = (counts[key] or 0) + 1
  end
  for _, peer in ipairs(peers(5)) do
    local count = counts[peer.key] or 0
    if count < 650 or count > 1350 then
      error(peer.key .. " got " .. count .. " of 5000 keys")
    end
  end
end

tests["ring: the same whatever the order of the nodes"] = function()
  local forward, backward = peers(6), peers(6)
  local reversed = {}
  for i = #backward, 1, -1 do
    reversed[#reversed + 1] = backward[i]
  end
  local a, b = assignment(chash.ring_new(forward), 2000), assignment(chash.ring_new(reversed), 2000)
  for i = 1, 2000 do
    eq(a[i], b[i], "key-" .. i)
  end
end

tests["ring: adding a node moves ~1/n of the keys, all to the new node"] = function()
  local before = assignment(chash.ring_new(peers(5)), 3000)
  local after = assignment(chash.ring_new(peers(6)), 3000)
  local moved = 0
  for i = 1, 3000 do
    if before[i] ~= after[i] then
      moved = moved + 1
      eq(after[i], "10.0.0.6:8080", "key-" .. i .. " moved to")
    end
  end
  if moved < 300 or moved > 750 then -- expected 3000/6 = 500
    error(moved .. " of 3000 keys moved")
  end
end

tests["ring: consecutive loopback ports still move ~1/n of the keys (crc32-built rings did not)"] = function()
  local total, worst = 0, 0
  for trial = 1, 40 do
    local nodes = {}
    for i = 1, 6 do
      local port = 40000 + trial * 100 + i
      nodes[i] = { key = "127.0.0.1:" .. port }
    end
    local before = assignment(chash.ring_new({ nodes[1], nodes[2], nodes[3], nodes[4], nodes[5] }), 300)
    local after = assignment(chash.ring_new(nodes), 300)
    local moved = 0
    for i = 1, 300 do
      if before[i] ~= after[i] then
        moved = moved + 1
      end
    end
    total = total + moved
    worst = math.max(worst, moved)
  end
  local average = total / 40 -- expected 300/6 = 50
  -- deterministic (fixed ports): md5 points give 50 and 66 here, crc32 points gave 50 and 100
  if average < 38 or average > 62 or worst > 85 then
    error("moved on average " .. average .. " of 300 keys, at worst " .. worst)
  end
end

tests["ring: removing a node moves only its keys"] = function()
  local all = peers(5)
  local before = assignment(chash.ring_new(all), 3000)
  local without = { all[1], all[2], all[4], all[5] }
  local after = assignment(chash.ring_new(without), 3000)
  for i = 1, 3000 do
    if before[i] ~= "10.0.0.3:8080" then
      eq(after[i], before[i], "key-" .. i)
    end
  end
end

tests["ring: walk skips tried nodes, one node, wrap-around"] = function()
  local list = peers(3)
  local ring = chash.ring_new(list)
  local node, position = chash.ring_find(ring, "some key")
  local skip = { [node] = true }
  local second = chash.ring_walk(ring, position, skip)
  assert(second ~= nil and second ~= node, "a different node")
  skip[second] = true
  local third = chash.ring_walk(ring, position, skip)
  assert(third ~= nil and third ~= node and third ~= second, "the third node")
  skip[third] = true
  eq(chash.ring_walk(ring, position, skip), nil, "all skipped")
  local single = chash.ring_new(peers(1))
  eq(chash.ring_find(single, "anything").key, "10.0.0.1:8080")
  -- a key hashed past the last point belongs to the first point
  local top = ring.points[#ring.points]
  local wrapped
  for i = 1, 1000000 do
    if ngx.crc32_long("wrap-" .. i) * 2 ^ 21 > top then
      wrapped = "wrap-" .. i
      break
    end
  end
  assert(wrapped, "found a key past the last point")
  local first_node, first_position = chash.ring_find(ring, wrapped)
  eq(first_position, 1, "position of " .. wrapped)
  eq(first_node, ring.nodes[ring.points[1] % 2 ^ 21])
  -- walking from the last point wraps around too
  local last_node = ring.nodes[top % 2 ^ 21]
  local after_last = chash.ring_walk(ring, #ring.points, { [last_node] = true })
  assert(after_last ~= nil and after_last ~= last_node, "walked past the end")
end

tests["chashsubset: stable subsets of the given size, padded"] = function()
  local backend = { hashBy = "$arg_key", hashBySubsetSize = 3, endpoints = peers(7) }
  local balancer = chashsubset.new(backend)
  eq(#balancer.ring.nodes, 3, "ceil(7/3) subsets")
  local seen = {}
  for _, subset in ipairs(balancer.ring.nodes) do
    eq(#subset.members, 3, subset.key .. " size")
    for _, member in ipairs(subset.members) do
      seen[member.key] = true
    end
  end
  for _, peer in ipairs(peers(7)) do
    assert(seen[peer.key], peer.key .. " is in a subset")
  end
  -- the same key ($arg_key = abc) always draws from the same 3 endpoints
  local drawn = {}
  for _ = 1, 200 do
    drawn[balancer:balance().key] = true
  end
  local count = 0
  for _ in pairs(drawn) do
    count = count + 1
  end
  eq(count, 3, "endpoints drawn for one key")
end

tests["cookie: all attributes, in order"] = function()
  local cookie = { name = "INGRESSCOOKIE", path = "/app", domain = "example.com", maxAge = 3600,
    expires = 60, secure = true, sameSite = "Strict" }
  eq(sticky.format_cookie(cookie, "k|b", { now = 1700000000, https = false }),
    "INGRESSCOOKIE=k|b; Expires=" .. ngx.cookie_time(1700000060)
      .. "; Max-Age=3600; Domain=example.com; Path=/app; Secure; HttpOnly; SameSite=Strict")
end

tests["cookie: defaults: the location's path, Secure only on HTTPS"] = function()
  local cookie = { name = "route" }
  eq(sticky.format_cookie(cookie, "v", { now = 0, https = false, location_path = "/shop" }),
    "route=v; Path=/shop; HttpOnly")
  eq(sticky.format_cookie(cookie, "v", { now = 0, https = true }), "route=v; Path=/; Secure; HttpOnly")
  eq(sticky.format_cookie(cookie, "v", { now = 0, https = false, location_path = "/api/(.*)" }),
    "route=v; Path=/; HttpOnly", "a regex location path is no cookie path")
  eq(sticky.format_cookie(cookie, "v", { now = 0, https = false, location_path = "" }),
    "route=v; Path=/; HttpOnly")
  eq(sticky.format_cookie({ name = "route", secure = false }, "v", { now = 0, https = true }),
    "route=v; Path=/; HttpOnly", "secure: false is never Secure")
end

tests["cookie: Partitioned after SameSite, whatever the scheme (ingress-nginx pull request 11242)"] = function()
  eq(sticky.format_cookie({ name = "c", path = "/", sameSite = "None", partitioned = true }, "v", { now = 0, https = true }),
    "c=v; Path=/; Secure; HttpOnly; SameSite=None; Partitioned")
  eq(sticky.format_cookie({ name = "c", path = "/", partitioned = true }, "v", { now = 0, https = false }),
    "c=v; Path=/; HttpOnly; Partitioned")
  eq(sticky.format_cookie({ name = "c", path = "/", partitioned = false }, "v", { now = 0, https = false }),
    "c=v; Path=/; HttpOnly")
end

tests["cookie: set only on the affinity's locations, by host, one-label wildcard, then server name"] = function()
  local sets = { ["a.example"] = { ["/foo/bar"] = true }, ["*.wild.example"] = { ["/"] = true }, _ = { ["/any"] = true } }
  eq(sticky.sets_cookie(nil, "a.example", "a.example", "/foo"), true, "no scope: every location")
  eq(sticky.sets_cookie(sets, "a.example", "a.example", "/foo/bar"), true)
  eq(sticky.sets_cookie(sets, "a.example", "a.example", "/foo"), false, "another Ingress's path")
  eq(sticky.sets_cookie(sets, "b.example", "b.example", "/foo/bar"), false, "another host")
  eq(sticky.sets_cookie(sets, "x.wild.example", "~^[^.]+\\.wild\\.example$", "/"), true)
  eq(sticky.sets_cookie(sets, "x.y.wild.example", "~^[^.]+\\.wild\\.example$", "/"), false, "one label only")
  eq(sticky.sets_cookie(sets, "unknown.example", "_", "/any"), true, "the catch-all's")
  eq(sticky.sets_cookie(sets, nil, "_", "/any"), true, "no Host")
  eq(sticky.sets_cookie(sets, "a.example", "a.example", nil), false, "no location path")
  eq(sticky.sets_cookie({}, "a.example", "a.example", "/foo/bar"), false, "an empty scope: nowhere")
end

tests["cookie: conditional SameSite=None"] = function()
  local cookie = { name = "c", path = "/", sameSite = "None", conditionalSameSiteNone = true }
  local modern = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
  local old = "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/62.0.3202.94 Safari/537.36"
  local ios12 = "Mozilla/5.0 (iPhone; CPU iPhone OS 12_0 like Mac OS X) AppleWebKit/605.1.15"
  eq(sticky.format_cookie(cookie, "v", { now = 0, user_agent = modern }), "c=v; Path=/; HttpOnly; SameSite=None")
  eq(sticky.format_cookie(cookie, "v", { now = 0, user_agent = old }), "c=v; Path=/; HttpOnly")
  eq(sticky.format_cookie(cookie, "v", { now = 0, user_agent = ios12 }), "c=v; Path=/; HttpOnly")
  eq(sticky.format_cookie(cookie, "v", { now = 0 }), "c=v; Path=/; HttpOnly; SameSite=None", "no user agent")
  cookie.conditionalSameSiteNone = false
  eq(sticky.format_cookie(cookie, "v", { now = 0, user_agent = old }), "c=v; Path=/; HttpOnly; SameSite=None")
  eq(sticky.format_cookie({ name = "c", path = "/", sameSite = "Lax", conditionalSameSiteNone = true }, "v",
    { now = 0, user_agent = old }), "c=v; Path=/; HttpOnly; SameSite=Lax", "only None is conditional")
end

tests["persistent: keys are md5(backend name .. host:port), as ingress-nginx"] = function()
  local backend = { name = "ns-svc-80", endpoints = peers(2), affinity = { mode = "persistent", cookie = { name = "c" } } }
  local balancer = sticky.persistent.new(backend)
  local first = backend.endpoints[1]
  eq(balancer:find(ngx.md5("ns-svc-80" .. "10.0.0.1:8080")), first)
  eq(balancer.backend_key, ngx.md5(ngx.md5("ns-svc-80") .. "ns-svc-80"))
  eq(balancer:find("unknown"), nil)
end

-- Hashes made by Apache's htpasswd (apr1, bcrypt, SHA) and Python's crypt (the same libxcrypt: $1$, $5$, $6$, DES).
local password_hash = require("portico.password_hash")
local digest_auth = require("portico.digest_auth")

local HASHES = {
  { "p\195\164ssword", "$apr1$uIVL1LWx$lGnhpcgpuWuPkWY3enNXe." },
  { "a-password-longer-than-sixteen-bytes", "$apr1$hY4cWf7U$LyrvuA5R6vzjwZgHpUh5m/" },
  { "", "$apr1$icWqKrK8$eyNxOf6kS7WiSvhpyDSC10" },
  { "secret", "$2y$04$pWCKMIbYO4HKoRO8uC.SlO1yOZXgU60/o81N1u.pyZsT6giaMobVq" },
  { "secret", "$2b$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW" },
  { "secret", "{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=" },
  { "secret", "{PLAIN}secret" },
  { "secret", "{SSHA}" .. ngx.encode_base64(ngx.sha1_bin("secret" .. "salt") .. "salt") },
  { "secret", "$1$oRWr1JnY$m6p9sB/7arvRuzHBxqwNH." },
  { "secret", "$5$8l31nMSAqBnI9FR6$wITgAzRhf6x69ep7vqZoyG.4BMjqIwLaokknuALQCe/" },
  { "secret", "$6$v3OJDPiqzTQpBq0z$SoDRRTeWY8FPrV9CikGj.oHnESGRXdYC6Wif4H4WHA82j7C.F3W5Z41MnVTn61TxzveUuJKwHOrdS9/tGWXIL0" },
  { "secret", "nqmxZCUN6JFQg" },
}

tests["password hashes: every format accepts its password and refuses others"] = function()
  eq(password_hash.crypt_available, true, "libcrypt.so.1 loaded")
  for _, case in ipairs(HASHES) do
    local password, hash = case[1], case[2]
    eq(password_hash.verify(password, hash), true, hash)
    eq(password_hash.verify(password .. "x", hash), false, hash .. " with a longer password")
    eq(password_hash.verify("wrong", hash), false, hash .. " with a wrong one")
  end
end

tests["password hashes: empty, unknown and malformed hashes match nothing; NUL never truncates"] = function()
  for _, hash in ipairs({ "", "*", "!", "$2y$04$short", "{SSHA}", "{SSHA}!!!", "$apr1$", "$9$x$y", "x" }) do
    eq(password_hash.verify("", hash), false, hash)
    eq(password_hash.verify("secret", hash), false, hash)
  end
  eq(password_hash.verify("secret\0tail", "$2b$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW"), false)
  eq(password_hash.verify("secret\0", "{PLAIN}secret"), false)
end

tests["password hashes: apr1 is Apache's MD5-crypt"] = function()
  eq(password_hash.apr1("p\195\164ssword", "uIVL1LWx"), "$apr1$uIVL1LWx$lGnhpcgpuWuPkWY3enNXe.")
  eq(password_hash.is_costly("$apr1$x$y"), true)
  eq(password_hash.is_costly("{SHA}x"), false)
  eq(password_hash.is_costly("$2y$05$x"), true)
end

tests["digest: Authorization parameters, quoted and bare, escapes; an unclosed quote is nothing"] = function()
  local params = digest_auth.parse_params('username="al\\"ice", realm="r, 1",nonce=abc , qop=auth, NC=00000001')
  eq(params.username, 'al"ice')
  eq(params.realm, "r, 1")
  eq(params.nonce, "abc")
  eq(params.qop, "auth")
  eq(params.nc, "00000001")
  eq(digest_auth.parse_params('username="alice'), nil)
end

tests["digest: a response computed as RFC 2617 passes; tampered, other URI, other realm, forged nonce do not"] = function()
  local md5 = ngx.md5
  local ha1 = md5("alice:r:pw")
  local entries = { ["alice:r"] = ha1 }
  local nonce = string.match(digest_auth.challenge("r", 42, false), 'nonce="(%x+)"')
  local function header(uri, response_uri, realm, nonce_value)
    local response = md5(ha1 .. ":" .. nonce_value .. ":00000001:c:auth:" .. md5("GET:" .. response_uri))
    return 'Digest username="alice", realm="' .. realm .. '", nonce="' .. nonce_value .. '", uri="' .. uri
      .. '", qop=auth, nc=00000001, cnonce="c", response="' .. response .. '"'
  end
  eq(digest_auth.verify(header("/a?b", "/a?b", "r", nonce), "r", entries, 42, "GET", "/a?b"), true)
  eq(digest_auth.verify(header("/a?b", "/a?b", "r", nonce), "r", entries, 42, "POST", "/a?b"), false, "method")
  eq(digest_auth.verify(header("/a?b", "/other", "r", nonce), "r", entries, 42, "GET", "/a?b"), false, "tampered")
  eq(digest_auth.verify(header("/other", "/other", "r", nonce), "r", entries, 42, "GET", "/a?b"), false, "other URI")
  eq(digest_auth.verify(header("/a?b", "/a?b", "s", nonce), "r", entries, 42, "GET", "/a?b"), false, "other realm")
  eq(digest_auth.verify(header("/a?b", "/a?b", "r", nonce), "r", entries, 43, "GET", "/a?b"), false, "another location's nonce")
  local forged = string.sub(nonce, 1, 8) .. string.rep("0", 40)
  eq(digest_auth.verify(header("/a?b", "/a?b", "r", forged), "r", entries, 42, "GET", "/a?b"), false, "forged nonce")
  eq(digest_auth.verify(nil, "r", entries, 42, "GET", "/"), false)
  eq(digest_auth.verify("Basic abc", "r", entries, 42, "GET", "/"), false)
end

function _M.run()
  local names = {}
  for name in pairs(tests) do
    names[#names + 1] = name
  end
  table.sort(names)
  local passed, failed = 0, 0
  for _, name in ipairs(names) do
    local ok, err = pcall(tests[name])
    if ok then
      passed = passed + 1
      ngx.say("ok ", name)
    else
      failed = failed + 1
      ngx.say("not ok ", name, ": ", tostring(err))
    end
  end
  ngx.say("passed ", passed, " failed ", failed)
end

return _M
