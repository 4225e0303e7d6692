-- Request metrics (--enable-metrics). Hooks (see lua/README.md):
--   init_by_lua:  portico_monitor = require("portico.monitor")
--                 portico_monitor.init({ port = P, token = T, max_batch_size = N })
--   log_by_lua:   portico_monitor.call()   (in the same block as the balancer's log())
--
-- Per request: copy 14 values (nginx variables, and the status, method and
-- request time from ngx_lua's API, which costs less than formatting the
-- variables) into a per-worker buffer, nothing else (no table, no JSON, no
-- shared memory, no lock). The location's namespace, Ingress, Service and
-- path come from $portico_location (renderLogVariables.ts), split once per
-- distinct value and worker. Once a second a timer
-- encodes the buffer as one JSON array and sends it to the controller on
-- 127.0.0.1:P in one connection: "<token>\n[fields...]", the fields of each
-- record in src/metrics/requestBatch.ts's RECORD_FIELDS order. A batch holds
-- N records at most: a full buffer is sent at once, from a zero-delay timer,
-- and a new one started (ingress-nginx instead drops what exceeds N a second).
-- Only while one full batch still waits for its timer are records dropped,
-- counted and reported.
local cjson = require("cjson.safe")
local new_tab = require("table.new")
local clear_tab = require("table.clear")

local ngx = ngx
local ngx_var = ngx.var
local ngx_now = ngx.now
local ngx_req_start_time = ngx.req.start_time
local ngx_req_get_method = ngx.req.get_method
local ngx_log = ngx.log
local ERR = ngx.ERR
local WARN = ngx.WARN
local type = type
local tostring = tostring
local error = error
local string_format = string.format
local string_find = string.find
local string_sub = string.sub

local _M = {}

local FIELDS = 14
local FLUSH_INTERVAL = 1 -- second, as ingress-nginx
local SEND_TIMEOUT_MS = 2000

local port = nil
local token_line = nil
local max_values = 0

-- Worker-local.
local buffer = nil
local size = 0 -- values in buffer (FIELDS per record)
local full = nil -- a full buffer waiting for its zero-delay timer
local dropped = 0
local timer_started = false

-- $portico_location -> { namespace, ingress, service, path }: one per
-- location the worker served, emptied past LOCATIONS_CACHED (a reload's new
-- workers start empty; only values set by hand could grow it further).
local LOCATIONS_CACHED = 100000
local locations = {}
local locations_count = 0
local NO_LOCATION = { "", "", "", "" }

-- "<namespace> <ingress> <service> <port> <path>": the names have no space, the path may.
local function split_location(value)
  local fields = {}
  local from = 1
  for i = 1, 4 do
    local space = string_find(value, " ", from, true)
    if space == nil then
      return NO_LOCATION -- not a value nginx.conf sets
    end
    if i ~= 4 then
      fields[i] = string_sub(value, from, space - 1) -- the port (4th) is not a label
    end
    from = space + 1
  end
  fields[4] = string_sub(value, from)
  return fields
end

local function location_fields(value)
  if value == nil then
    return NO_LOCATION
  end
  local fields = locations[value]
  if fields == nil then
    if locations_count >= LOCATIONS_CACHED then
      clear_tab(locations)
      locations_count = 0
    end
    fields = split_location(value)
    locations[value] = fields
    locations_count = locations_count + 1
  end
  return fields
end

local function integer_option(options, name, min, max)
  local value = type(options) == "table" and options[name] or nil
  if type(value) ~= "number" or value % 1 ~= 0 or value < min or value > max then
    error("portico.monitor.init: " .. name .. " must be an integer from " .. min .. " to " .. max .. ", got " .. tostring(value))
  end
  return value
end

function _M.init(options)
  port = integer_option(options, "port", 1, 65535)
  -- %.0f: tostring() would print a number above 1e14 in exponent notation.
  token_line = string_format("%.0f\n", integer_option(options, "token", 1, 2 ^ 53))
  max_values = integer_option(options, "max_batch_size", 1, 1000000) * FIELDS
end

local function send(payload)
  local socket = ngx.socket.tcp()
  socket:settimeout(SEND_TIMEOUT_MS)
  local ok, err = socket:connect("127.0.0.1", port)
  if not ok then
    return nil, err
  end
  ok, err = socket:send(payload)
  socket:close()
  return ok, err
end

-- `json` is cjson.encode()'s answer for a buffer: the array, or nil and why not.
local function send_batch(json, err)
  if json == nil then
    ngx_log(ERR, "portico metrics: cannot encode request records: ", err)
    return
  end
  local ok
  ok, err = send(token_line .. json)
  if not ok then
    ngx_log(ERR, "portico metrics: sending request records to the controller failed: ", err)
  end
end

local function send_full()
  local batch = full
  if batch == nil then
    return
  end
  full = nil
  send_batch(cjson.encode(batch))
end

-- Every second, and once more when the worker exits (premature): the last records still go out.
local function flush()
  if dropped > 0 then
    ngx_log(WARN, "portico metrics: ", dropped, " requests not recorded: the worker logged two full batches ",
      "(--monitor-max-batch-size) before it could send the first")
    dropped = 0
  end
  send_full()
  if size == 0 then
    return
  end
  -- Encoding and clearing do not yield, so requests logged while send() waits go to the next batch.
  local json, err = cjson.encode(buffer)
  clear_tab(buffer)
  size = 0
  send_batch(json, err)
end

-- The buffer is full: hand it to a zero-delay timer and start another.
local function rotate()
  if full ~= nil then
    return false
  end
  local ok, err = ngx.timer.at(0, send_full)
  if not ok then
    ngx_log(ERR, "portico metrics: cannot schedule sending a full batch: ", err)
    return false
  end
  full = buffer
  buffer = new_tab(max_values, 0)
  size = 0
  return true
end

local function start_timer()
  timer_started = true
  buffer = new_tab(max_values, 0)
  local ok, err = ngx.timer.every(FLUSH_INTERVAL, flush)
  if not ok then
    ngx_log(ERR, "portico metrics: cannot start the flush timer: ", err)
  end
end

-- log_by_lua: one record for this request.
function _M.call()
  if port == nil then
    return
  end
  if not timer_started then
    start_timer()
  end
  if size >= max_values and not rotate() then
    dropped = dropped + 1
    return
  end
  local n = size
  local var = ngx_var
  local location = location_fields(var.portico_location)
  buffer[n + 1] = var.host or ""
  buffer[n + 2] = location[1]
  buffer[n + 3] = location[2]
  buffer[n + 4] = location[3]
  buffer[n + 5] = var.proxy_alternative_upstream_name or ""
  buffer[n + 6] = location[4]
  buffer[n + 7] = ngx_req_get_method()
  local status = ngx.status
  buffer[n + 8] = status
  buffer[n + 9] = var.request_length or ""
  buffer[n + 10] = ngx_now() - ngx_req_start_time() -- $request_time, unformatted
  buffer[n + 11] = var.bytes_sent or ""
  if status == 503 and var.upstream_addr == var.portico_no_endpoints_peer then
    -- The balancer's stand-in for a backend without endpoints: no upstream
    -- answered, as in ingress-nginx, which proxies such a request nowhere.
    buffer[n + 12], buffer[n + 13], buffer[n + 14] = "", "", ""
  else
    buffer[n + 12] = var.upstream_connect_time or ""
    buffer[n + 13] = var.upstream_header_time or ""
    buffer[n + 14] = var.upstream_response_time or ""
  end
  size = n + FIELDS
end

return _M
