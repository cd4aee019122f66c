-- A statement's own veto: raises (SQLSTATE CD001, the message naming the check) when `ok` is not
-- true, and answers true otherwise. A chat transition's commit write carries its checks (the
-- queue length and landing it expects, admission's recheck) as calls to this in its RETURNING,
-- so a failed check aborts the transaction from inside the statement and COMMIT can go out in the
-- same round trip (src/db/transaction.ts, src/chats/chat-tx.ts). VOLATILE: never folded at plan
-- time, evaluated once per returned row.
CREATE FUNCTION chatd_check(ok boolean, check_name text)
RETURNS boolean AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION USING ERRCODE = 'CD001', MESSAGE = check_name;
  END IF;
  RETURN true;
END;
$$ LANGUAGE plpgsql VOLATILE;
