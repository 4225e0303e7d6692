-- The peers a retry may still use: those this request has not tried yet, or
-- all of them once every one has been tried.
local ipairs = ipairs

local function untried(peers, tried)
  if tried == nil then
    return peers
  end
  local left = {}
  for _, peer in ipairs(peers) do
    if not tried[peer] then
      left[#left + 1] = peer
    end
  end
  if #left > 0 then
    return left
  end
  return peers
end

return untried
