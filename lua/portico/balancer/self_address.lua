-- Peers that are Portico itself, checked again at balance time whatever a
-- push says (the controller checks first: src/model/selfAddress.ts). The
-- address is parsed, not compared as text: only literals nginx connects to
-- as given (a dotted quad, IPv6) pass, and IPv4-mapped and -compatible forms
-- count as the IPv4 address they carry.
local string_find = string.find
local string_gmatch = string.gmatch
local string_match = string.match
local tonumber = tonumber
local ipairs = ipairs
local math_floor = math.floor

local _M = {}

-- An IPv4 literal as nginx's set_current_peer reads it: four decimal parts.
local function ipv4_bytes(address)
  local a, b, c, d = string_match(address, "^(%d%d?%d?)%.(%d%d?%d?)%.(%d%d?%d?)%.(%d%d?%d?)$")
  if a == nil then
    return nil
  end
  local bytes = { tonumber(a), tonumber(b), tonumber(c), tonumber(d) }
  for _, byte in ipairs(bytes) do
    if byte > 255 then
      return nil
    end
  end
  return bytes
end

-- An IPv6 literal (compressed or not, maybe with a dotted IPv4 tail) as 8 groups.
local function ipv6_groups(address)
  if not string_find(address, ":", 1, true) then
    return nil
  end
  local head, tail = address, nil
  local gap = string_find(address, "::", 1, true)
  if gap ~= nil then
    head, tail = address:sub(1, gap - 1), address:sub(gap + 2)
    if string_find(tail, "::", 1, true) then
      return nil
    end
  end
  local function groups_of(text)
    local groups = {}
    if text == "" then
      return groups
    end
    local pieces = {}
    for piece in string_gmatch(text .. ":", "([^:]*):") do
      pieces[#pieces + 1] = piece
    end
    for i, piece in ipairs(pieces) do
      local ipv4 = i == #pieces and ipv4_bytes(piece) or nil
      if ipv4 ~= nil then
        groups[#groups + 1] = ipv4[1] * 256 + ipv4[2]
        groups[#groups + 1] = ipv4[3] * 256 + ipv4[4]
      elseif string_find(piece, "^%x%x?%x?%x?$") then
        groups[#groups + 1] = tonumber(piece, 16)
      else
        return nil
      end
    end
    return groups
  end
  local first, last = groups_of(head), groups_of(tail or "")
  if first == nil or last == nil then
    return nil
  end
  local missing = 8 - #first - #last
  if (gap ~= nil and missing < 1) or (gap == nil and missing ~= 0) then
    return nil
  end
  local groups = first
  for _ = 1, missing do
    groups[#groups + 1] = 0
  end
  for _, group in ipairs(last) do
    groups[#groups + 1] = group
  end
  return groups
end

-- Why a peer (address lower case, without brackets) must not be used, or
-- nil. `policy`: { ports = { [port] = true } (Portico's), refuse_loopback }.
-- A name is never resolved here, an unspecified address is this machine, and
-- loopback (also IPv4-mapped or -compatible) is Portico at its own ports.
function _M.refusal(address, port, policy)
  local ipv4 = ipv4_bytes(address)
  if ipv4 == nil then
    local groups = ipv6_groups(address)
    if groups == nil then
      return "is not an IP address"
    end
    local zero_prefix = true
    for i = 1, 5 do
      if groups[i] ~= 0 then
        zero_prefix = false
      end
    end
    if zero_prefix and groups[6] == 0 and groups[7] == 0 and (groups[8] == 0 or groups[8] == 1) then
      if groups[8] == 0 then
        return "is the unspecified address"
      end
      ipv4 = { 127, 0, 0, 1 } -- ::1, loopback as 127.0.0.1 is
    elseif zero_prefix and (groups[6] == 0xffff or groups[6] == 0) then
      ipv4 = { math_floor(groups[7] / 256), groups[7] % 256, math_floor(groups[8] / 256), groups[8] % 256 }
    else
      return nil
    end
  end
  if ipv4[1] == 0 then
    return "is an unspecified address"
  end
  if ipv4[1] == 127 and (policy.refuse_loopback or policy.ports[port]) then
    return "is a loopback address: Portico itself"
  end
  return nil
end

return _M
