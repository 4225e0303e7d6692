-- upstream-hash-by values: nginx variable expressions such as "$request_uri"
-- or "${host}-$arg_key". Only `$name` / `${name}` references and literal text
-- are understood; they are looked up in ngx.var per request. Nothing in the
-- expression is ever loaded or executed as code: it comes from an annotation.
local ngx = ngx
local type = type
local ipairs = ipairs
local tonumber = tonumber
local string_find = string.find
local string_sub = string.sub
local table_concat = table.concat

local _M = {}

-- Returns a list of parts: a string is literal text, { name } a variable.
-- Unlike nginx, which refuses the configuration, a "$" that starts no valid
-- reference ("$", "${x" without "}") is kept as literal text: a push must not
-- fail over one annotation.
function _M.parse(expression)
  local parts = {}
  local literal_start = 1
  local position = 1
  local length = #expression
  local function literal_until(last)
    if last >= literal_start then
      parts[#parts + 1] = string_sub(expression, literal_start, last)
    end
  end
  while position <= length do
    local dollar = string_find(expression, "$", position, true)
    if dollar == nil then
      break
    end
    local _, finish, name = string_find(expression, "^{([%w_]+)}", dollar + 1)
    if name == nil then
      _, finish, name = string_find(expression, "^([%w_]+)", dollar + 1)
    end
    if name ~= nil then
      literal_until(dollar - 1)
      -- "$1": a capture of the location's regex, which ngx.var indexes by number
      parts[#parts + 1] = { string_find(name, "^%d+$") and tonumber(name) or name }
      literal_start = finish + 1
      position = finish + 1
    else
      position = dollar + 1 -- a lone "$" stays in the literal text
    end
  end
  literal_until(length)
  return parts
end

-- The expression's value for the current request; an unset or unknown
-- variable counts as "" (as nginx evaluates it).
function _M.evaluate(parts)
  local var = ngx.var
  if #parts == 1 then -- the usual case ("$request_uri"): no concatenation
    local part = parts[1]
    if type(part) == "string" then
      return part
    end
    return var[part[1]] or ""
  end
  local values = {}
  for i, part in ipairs(parts) do
    if type(part) == "string" then
      values[i] = part
    else
      values[i] = var[part[1]] or ""
    end
  end
  return table_concat(values)
end

return _M
