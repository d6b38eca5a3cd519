const inspector = require('inspector');
const fs = require('fs');
const s = new inspector.Session(); s.connect();
const chunks = [];
s.on('NodeTracing.dataCollected', m => chunks.push(...m.params.value));
s.post('NodeTracing.start', {traceConfig:{includedCategories:['disabled-by-default-v8.cpu_profiler','v8']}}, (err) => {
  if (err) { console.error(err); return; }
  function heavy(n){let x=0;for(let i=0;i<n;i++)x+=Math.sqrt(i);return x}
  const end=Date.now()+200; let k=0; while(Date.now()<end) k+=heavy(1e5);
  s.post('NodeTracing.stop', () => { fs.writeFileSync('tr.json', JSON.stringify(chunks)); console.log(chunks.length); });
});
