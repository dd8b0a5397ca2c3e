# Edge-case streams for tests/tests/v1_inbound.rs; the expectations come from the
# 1.0 reference client:
#   python3 tests/tests/v1_edge/gen.py | node tools/oracle/run.mjs --protocol 1.0 \
#     > tests/tests/v1_edge/expected.jsonl
import json
RS={"type":"RUN_STARTED","threadId":"t","runId":"r"}
RF={"type":"RUN_FINISHED","threadId":"t","runId":"r"}
cases={}
def c(name,*evs): cases[name]=[RS,*evs,RF]
c("own-name-keys",{"type":"CUSTOM","name":"n","value":1,"toString":1,"constructor":2,"__proto__":3,"hasOwnProperty":4})
c("cascade-source",{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"image","source":{"type":"future","value":"x","extra":1},"extra2":1},{"type":"text","text":"t","zzz":1},{"type":"audio","source":{"value":"x"}},{"type":"video","source":{"type":"file","value":"f","provider":"p","q":1}}]})
c("snapshot-mixed",{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"wizard","x":1},{"id":"b","role":"user","extra":1,"content":[{"type":"binary","mimeType":"image/png","data":"AAA","filename":"f.png"},{"type":"image","source":{"type":"data","value":"AAA","mimeType":"image/png"},"metadata":{"filename":"f.png"}}]},{"id":"c","role":"assistant","toolCalls":[{"id":"t","type":"function","function":{"name":"n","arguments":"{}","x":1},"y":2}]}]})
c("snapshot-null-message",{"type":"MESSAGES_SNAPSHOT","messages":[None]})
c("snapshot-number-message",{"type":"MESSAGES_SNAPSHOT","messages":[5]})
c("patch-open-and-unknown",{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a","value":3,"zz":1},{"op":"frob","path":"/a"},{"path":"/x"},{"op":"add","path":"/b","value":None}]})
c("patch-add-needs-value",{"type":"STATE_DELTA","delta":[{"op":"add","path":"/b"}]})
c("patch-move-bad-from",{"type":"STATE_DELTA","delta":[{"op":"move","path":"/b","from":"a~"}]})
c("outcome-no-type",{**RF,"outcome":{"foo":1}})
cases["outcome-no-type"]=[RS,{**RF,"outcome":{"foo":1}}]
cases["outcome-array"]=[RS,{**RF,"outcome":[1]}]
cases["outcome-empty-interrupts"]=[RS,{**RF,"outcome":{"type":"interrupt","interrupts":[]}}]
cases["outcome-interrupt-extra"]=[RS,{**RF,"outcome":{"type":"interrupt","x":1,"interrupts":[{"id":"i","reason":"r","y":2,"subagentRunId":"s","responseSchema":{"z":1}}]},"subagentRunId":"s"}]
cases["outcome-pending-bad"]=[RS,{**RF,"outcome":{"type":"success","pendingToolCallIds":[1]}}]
cases["outcome-cancelled-extra"]=[RS,{**RF,"outcome":{"type":"cancelled","pendingToolCallIds":["a"]},"result":None,"rawEvent":None}]
c("subagent",{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","zz":1},{"type":"SUBAGENT_FINISHED","subagentRunId":"s","result":None,"outcome":{"type":"suspended","interruptIds":["a"],"x":1}})
c("subagent-outcome-unknown",{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"},{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"exploded"}})
c("subagent-started-needs-id",{"type":"SUBAGENT_STARTED","name":"n"})
cases["input-everything"]=[{**RS,"subagentRunId":"s","input":{"threadId":"t","runId":"r","zz":1,"forwardedProps":None,"tools":[{"name":"a","description":"d","parameters":None,"x":1}],"context":[{"description":"d","value":"v","y":1}],"resume":[{"interruptId":"i","status":"resolved","payload":None,"w":1}],"messages":[{"id":"m","role":"user","content":[{"type":"image","source":{"type":"url","value":"u"},"metadata":None},{"type":"binary","mimeType":"text/plain","id":"only"},{"type":"binary","mimeType":"audio/x","url":"u2","data":0,"filename":""}]},{"id":"n","role":"tool","toolCallId":"t","content":[{"type":"document","source":{"type":"data","value":"v","mimeType":"m"},"metadata":None}]},{"id":"o","role":"ghost"}]}},RF]
cases["input-null-message"]=[{**RS,"input":{"threadId":"t","runId":"r","messages":[None]}},RF]
c("binary-number-data",{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"b","role":"user","content":[{"type":"binary","mimeType":"image/png","data":5}]}]})
c("binary-mime-not-string",{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"b","role":"user","content":[{"type":"binary","mimeType":5,"data":"x"}]}]})
c("binary-duplicates",{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"b","role":"user","content":[{"type":"binary","mimeType":"video/mp4","data":"x"},{"type":"binary","mimeType":"video/mp4","data":"x"},{"type":"video","source":{"type":"data","value":"y","mimeType":"video/mp4"}},{"type":"binary","mimeType":"video/mp4","data":"y","filename":"f"},{"type":"binary","mimeType":"video/mp4","url":"y"}]}]})
c("binary-dup-url",{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"b","role":"user","content":[{"type":"document","source":{"type":"url","value":"y","mimeType":"application/pdf"},"metadata":{"filename":"f"}},{"type":"binary","mimeType":"application/pdf","url":"y","filename":"f"},{"type":"binary","mimeType":"application/pdf","url":"y","filename":"g"}]}]})
c("binary-in-tool-result",{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"binary","mimeType":"image/png","data":"x"}]})
c("content-string-element",{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":["str"]})
c("media-source-string",{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"image","source":"s"}]})
c("text-part-metadata-null",{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"text","text":"x","metadata":None}]})
c("thinking-odd",{"type":"THINKING_TEXT_MESSAGE_CONTENT"},{"type":"THINKING_END","x":1})
c("thinking-title-null",{"type":"THINKING_START","title":None,"rawEvent":None,"messageId":"given"})
c("slash-keys",{"type":"CUSTOM","name":"n","value":1,"a/b":1,"~":2,"":3})
c("int-keys",{"type":"CUSTOM","name":"n","value":1,"b":1,"1":2,"a":3,"0":4})
c("ts-neg-big",{"type":"CUSTOM","name":"n","value":1,"timestamp":-9007199254740992})
c("ts-ok",{"type":"CUSTOM","name":"n","value":1,"timestamp":1e3},{"type":"CUSTOM","name":"n","value":1,"timestamp":1.0})
c("usage-neg",{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":-1,"outputTokens":1.5,"x":1}]})
c("usage-neg-big",{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":-9007199254740993}]})
c("usage-not-array",{"type":"RUN_ERROR","message":"m","usage":{"inputTokens":1}})
c("activity-patch",{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"x":[1]}},{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"t","patch":[{"op":"nope"},{"op":"replace","path":"/x","value":2,"k":1}]})
c("subagent-null",{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":None,"rawEvent":None})
c("multi-issue",{"type":"TOOL_CALL_START","toolCallId":1,"toolCallName":None,"timestamp":"x","metadata":[]})
cases["frame-array"]=[RS,[1]]
cases["frame-empty-type"]=[RS,{"type":""}]
cases["frame-type-number"]=[RS,{"type":5}]
cases["unknown-first"]=[{"type":"HELLO","x":1},RS,RF]
c("tool-message-parts",{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"t","role":"tool","toolCallId":"x","content":[{"type":"zip"},{"type":"text","text":"a"}],"error":"e"},{"id":"r","role":"reasoning","content":"c","q":1},{"id":"a","role":"activity","activityType":"x","content":{"k":1},"q":2}]})
c("message-role-missing-in-input-style",{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"x","content":"c"}]})
c("snapshot-messages-not-array",{"type":"MESSAGES_SNAPSHOT","messages":{"a":1}})
c("text-role-bad",{"type":"TEXT_MESSAGE_CHUNK","role":"tool"})
c("enc-subtype",{"type":"REASONING_ENCRYPTED_VALUE","subtype":"span","entityId":"e","encryptedValue":"v"})
c("resume-status",{**RS,"input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"maybe"}]}})
cases["resume-status"]=[{**RS,"input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"maybe"}]}},RF]
cases["input-state-null"]=[{**RS,"input":{"threadId":"t","runId":"r","messages":[],"state":None,"tools":None}},RF]
c("nested-deep-unknown-in-input-message-part",{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"image","id":"p","source":{"type":"url","value":"v","mimeType":"m","deep":{"x":1}},"metadata":{"free":{"y":1}}}]}]})
for n,e in cases.items(): print(json.dumps({"name":"edge-"+n,"events":e}))
